package rawname

import (
	"errors"
	"testing"
)

func TestB64RoundTrip(t *testing.T) {
	for _, s := range []string{"a\xff", "a\xfe", "\xc3", "dir/\x80x"} {
		b := B64(s)
		if b == "" {
			t.Fatalf("B64(%q) is empty for a name that is not UTF-8", s)
		}
		got, err := Decode(b)
		if err != nil || got != s {
			t.Fatalf("Decode(B64(%q)) = %q, %v", s, got, err)
		}
	}
	if B64("a\xff") == B64("a\xfe") {
		t.Fatal("two different names share one B64")
	}
	for _, s := range []string{"", "plain", "é/ü", "\ufffd"} {
		if b := B64(s); b != "" {
			t.Fatalf("B64(%q) = %q, want no field for valid UTF-8", s, b)
		}
	}
	if _, err := Decode("not base64!"); !errors.Is(err, ErrBadBase64) {
		t.Fatalf("Decode of junk: %v, want ErrBadBase64", err)
	}
}
