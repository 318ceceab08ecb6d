package mcpserver

import "testing"

// TestToFixed2: formatSize's two decimals round a tie up, as JavaScript's
// toFixed does (the reference's sizes), not to even; a value just below a
// tie (1.005 is 1.00499...) rounds down.
func TestToFixed2(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{2.625, "2.63"}, {2.125, "2.13"}, {1.0, "1.00"}, {1.005, "1.00"}, {1.4648, "1.46"}, {1023.999, "1024.00"}, {0.125, "0.13"}} {
		if got := toFixed2(c.x); got != c.want {
			t.Errorf("toFixed2(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	if got := formatSize(2688); got != "2.63 KB" {
		t.Errorf("formatSize(2688) = %q, want the reference's 2.63 KB", got)
	}
}
