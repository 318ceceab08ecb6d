package tools

import "testing"

func TestHookScript(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"/opt/hooks/check.sh --fast", "/opt/hooks"},
		{"'/tmp/x y/hook' arg", "/tmp/x y"},
		{`"/tmp/h/run" a`, "/tmp/h"},
		{"~/.claude/hooks/fmt.sh", "/home/u/.claude/hooks"},
		{"~/fmt.sh", "/home/u/fmt.sh"},
		{"/home/check.sh", "/home/check.sh"},
		{"  /a/b;rm -rf /", "/a"},
		{"make test", ""},
		{"$HOME/x.sh", ""},
		{`"$X/y"`, ""},
		{"FOO=1 /bin/x", ""},
		{"'unterminated", ""},
	} {
		if got := hookScript(c.cmd, "/home/u"); got != c.want {
			t.Errorf("hookScript(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}
