//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// one is a call sending files from the working directory.
func one(files ...any) func(w *hookWorld) []string {
	return func(w *hookWorld) []string { return []string{payload(w.ws, files)} }
}

// outside makes root/out/NAME with body.
func outside(name, body string) func(w *hookWorld) {
	return func(w *hookWorld) { w.file(filepath.Join(w.out, name), body) }
}

// old sets p's times 15 days back.
func old(p string) {
	t := time.Now().Add(-15 * 24 * time.Hour)
	os.Chtimes(p, t, t)
}

// hookCases go through the script line by line: decide's checks in their
// order, stage, outbox and prune, and the two differences the issue names.
var hookCases = []hookCase{
	{name: "outside file, extra keys kept", setup: outside("report.md", "# hi\n"),
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "report.md")}, `"caption": "the report", "display": {"inline": true}`)}
		}},
	{name: "inside files, absolute and relative", setup: func(w *hookWorld) { w.file(filepath.Join(w.ws, "in.txt"), "x") },
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.ws, "in.txt"), "in.txt", "./in.txt"})}
		}},
	{name: "left alone: missing, directory, blank, not strings", setup: outside("a.txt", "a"),
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "missing"), w.out, "", "   ", "\t\n", 7, nil, true, 1.5,
				map[string]any{"p": "x"}, []any{"y"}, filepath.Join(w.out, "a.txt")})}
		}},
	{name: "relative entry leaving cwd", setup: outside("rel.txt", "r"), calls: one("../out/rel.txt")},
	{name: "symlink inside cwd pointing outside", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "real.txt"), "real")
		w.link(filepath.Join(w.out, "real.txt"), filepath.Join(w.ws, "alias.txt"))
	}, calls: one("alias.txt")},
	{name: "symlink outside pointing inside", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.ws, "in.txt"), "in")
		w.link(filepath.Join(w.ws, "in.txt"), filepath.Join(w.out, "l.txt"))
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "l.txt")})} }},
	{name: "cwd through a symlinked alias", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.ws, "in.txt"), "in")
		w.file(filepath.Join(w.out, "o.txt"), "o")
		w.link(w.ws, filepath.Join(w.root, "alias"))
	}, calls: func(w *hookWorld) []string {
		a := filepath.Join(w.root, "alias")
		return []string{payload(a, []any{filepath.Join(a, "in.txt"), filepath.Join(w.ws, "in.txt"), filepath.Join(w.out, "o.txt")})}
	}},
	{name: "cwd with a trailing slash and a dot", setup: outside("o.txt", "o"), calls: func(w *hookWorld) []string {
		return []string{payload(w.ws+"/./", []any{filepath.Join(w.out, "o.txt")}), payload(w.ws+"/", []any{"../out/o.txt"})}
	}},
	{name: "cwd with ..", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "o.txt"), "o")
		os.Mkdir(filepath.Join(w.ws, "sub"), 0o755)
	},
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws+"/sub/..", []any{filepath.Join(w.out, "o.txt")})}
		}},
	{name: "mix in order", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "a.txt"), "a")
		w.file(filepath.Join(w.out, "b.txt"), "bb")
		w.file(filepath.Join(w.ws, "in.txt"), "in")
	}, calls: func(w *hookWorld) []string {
		return []string{payload(w.ws, []any{filepath.Join(w.out, "a.txt"), "in.txt", filepath.Join(w.out, "nope"), filepath.Join(w.out, "b.txt")})}
	}},
	{name: "the same file twice in one call", setup: outside("twice.txt", "twice"),
		calls: func(w *hookWorld) []string {
			p := filepath.Join(w.out, "twice.txt")
			return []string{payload(w.ws, []any{p, p})}
		}},
	{name: "home: ~ and ~/ expand, ~user too, an unknown user does not", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.home, "h.txt"), "home")
		w.file(filepath.Join(w.ws, "~nosuchuser", "x.txt"), "tilde dir inside")
	}, calls: one("~/h.txt", "~", "~nosuchuser/x.txt", "~root/.nosuchfile")},
	{name: "trailing slash on a file", setup: outside("shot.png", "\x89PNG"),
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "shot.png") + "/"})}
		}},
	{name: "trailing slash and dot on a file, doubled slashes", setup: outside("shot.png", "\x89PNG"),
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "shot.png") + "/.", "/" + filepath.Join(w.out, "shot.png"), w.out + "//shot.png//"})}
		}},
	{name: "a missing directory then ..: realpath keeps going", setup: outside("f.txt", "f"),
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "missing") + "/../f.txt", filepath.Join(w.out, "f.txt", "..", "f.txt")})}
		}},
	{name: "a link then ..: taken after the link", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.root, "deep", "sub", "g.txt"), "g")
		w.link(filepath.Join(w.root, "deep", "sub", "inner"), filepath.Join(w.out, "jump"))
		os.MkdirAll(filepath.Join(w.root, "deep", "sub", "inner"), 0o755)
	}, calls: func(w *hookWorld) []string {
		return []string{payload(w.ws, []any{filepath.Join(w.out, "jump", "..", "g.txt")})}
	}},
	{name: "trailing slash on a directory", calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{w.out + "/"})} }},
	{name: "a path through a file", setup: outside("f", "f"),
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "f", "x")})} }},
	{name: "a symlink loop", setup: func(w *hookWorld) { w.link("loop", filepath.Join(w.out, "loop")) },
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "loop")})} }},
	{name: "a dangling link", setup: func(w *hookWorld) { w.link("nowhere", filepath.Join(w.out, "dangling")) },
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "dangling")})} }},
	{name: "a FIFO", setup: func(w *hookWorld) { mkfifo(filepath.Join(w.out, "fifo")) },
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "fifo")})} }},
	{name: "a NUL in a path, next to a good file", setup: outside("good.txt", "g"),
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "a\x00b.txt"), filepath.Join(w.out, "dir\x00/"), filepath.Join(w.out, "good.txt")})}
		}},
	{name: "names: non-ASCII and quotes", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "résumé \"final\".pdf"), "pdf")
		w.file(filepath.Join(w.out, "😀.txt"), "emoji")
	}, calls: func(w *hookWorld) []string {
		return []string{payload(w.ws, []any{filepath.Join(w.out, "résumé \"final\".pdf"), filepath.Join(w.out, "😀.txt")}, `"caption": "café \u00e9 \/ </script>"`)}
	}},
	{name: "a real name that is not UTF-8", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "caf\xe9 \xff.txt"), "latin-1 name")
		w.link(filepath.Join(w.out, "caf\xe9 \xff.txt"), filepath.Join(w.out, "link.txt"))
		w.file(filepath.Join(w.out, "big\xfe"), "0123456789")
		w.link(filepath.Join(w.out, "big\xfe"), filepath.Join(w.out, "big-link"))
	}, maxBytes: 15, calls: func(w *hookWorld) []string {
		return []string{payload(w.ws, []any{filepath.Join(w.out, "link.txt"), filepath.Join(w.out, "big-link")})}
	}},
	{name: "other members re-encoded as JSON does", setup: outside("n.txt", "n"), calls: func(w *hookWorld) []string {
		return []string{payload(w.ws, []any{filepath.Join(w.out, "n.txt")}, `"n": 1e5, "f": 1.50, "big": 123456789012345678901234567890, "neg": -0, "s": "\u00e9\ud83d\ude00"`)}
	}},
	{name: "a file list with unusual entries kept as they were", setup: outside("k.txt", "k"), calls: func(w *hookWorld) []string {
		return []string{`{"tool_name": "SendUserFile", "cwd": "` + w.ws + `", "tool_input": {"files": [1e2, "` + filepath.Join(w.out, "k.txt") + `", {"a": [1, 2.0]}, "\u00e9"]}}`}
	}},
	{name: "byte budget smaller than the file", setup: outside("big.bin", strings.Repeat("x", 100)), maxBytes: 99,
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "big.bin")})} }},
	{name: "byte budget equal to the file", setup: outside("big.bin", strings.Repeat("x", 100)), maxBytes: 100,
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "big.bin")})} }},
	{name: "byte budget across two files", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "a.bin"), strings.Repeat("a", 60))
		w.file(filepath.Join(w.out, "b.bin"), strings.Repeat("b", 60))
		w.file(filepath.Join(w.out, "c.bin"), strings.Repeat("c", 40))
	}, maxBytes: 100, calls: func(w *hookWorld) []string {
		return []string{payload(w.ws, []any{filepath.Join(w.out, "a.bin"), filepath.Join(w.out, "b.bin"), filepath.Join(w.out, "c.bin")})}
	}},
	{name: "budget kept name is the real file's", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "real.bin"), strings.Repeat("r", 50))
		w.link(filepath.Join(w.out, "real.bin"), filepath.Join(w.out, "alias.bin"))
	}, maxBytes: 10, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "alias.bin")})} }},
	{name: "an empty file with no budget", setup: outside("empty", ""), maxBytes: -1,
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "empty")})} }},
	{name: "deadline passed", setup: outside("late.txt", "late"), deadline: "1ns",
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "late.txt")})} }},
	{name: "re-sent unchanged reuses its copy", setup: outside("r.txt", "one"),
		calls: func(w *hookWorld) []string {
			p := filepath.Join(w.out, "r.txt")
			return []string{payload(w.ws, []any{p}), payload(w.ws, []any{p})}
		}},
	{name: "a copy of the same size already there is reused", setup: outside("same.txt", "abc"), prep: func(w *hookWorld) {
		// The digest of the source as it is, with a different copy in place.
		digest := digestOf(w, filepath.Join(w.out, "same.txt"))
		w.file(filepath.Join(w.ws, ".agent-harness", "outbox", digest, "same.txt"), "xyz")
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "same.txt")})} }},
	{name: "a copy of another size is replaced", setup: outside("same.txt", "abc"), prep: func(w *hookWorld) {
		digest := digestOf(w, filepath.Join(w.out, "same.txt"))
		w.file(filepath.Join(w.ws, ".agent-harness", "outbox", digest, "same.txt"), "longer")
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "same.txt")})} }},
	{name: "the target is a directory", setup: outside("t.txt", "t"), prep: func(w *hookWorld) {
		digest := digestOf(w, filepath.Join(w.out, "t.txt"))
		os.MkdirAll(filepath.Join(w.ws, ".agent-harness", "outbox", digest, "t.txt"), 0o755)
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "t.txt")})} }},
	{name: "prune: an old digest folder goes, others stay", setup: outside("p.txt", "p"), prep: func(w *hookWorld) {
		box := filepath.Join(w.ws, ".agent-harness", "outbox")
		w.file(filepath.Join(box, "0123456789abcdef", "old.txt"), "old")
		w.file(filepath.Join(box, "fedcba9876543210", "fresh.txt"), "fresh")
		w.file(filepath.Join(box, "not-a-digest", "x"), "x")
		w.file(filepath.Join(box, "0123456789ABCDEF", "x"), "upper")
		w.file(filepath.Join(box, "aaaaaaaaaaaaaaaa"), "a file")
		os.MkdirAll(filepath.Join(w.out, "target"), 0o755)
		w.link(filepath.Join(w.out, "target"), filepath.Join(box, "bbbbbbbbbbbbbbbb"))
		for _, p := range []string{"0123456789abcdef", "not-a-digest", "0123456789ABCDEF", "aaaaaaaaaaaaaaaa"} {
			old(filepath.Join(box, p))
		}
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "p.txt")})} }},
	{name: "no prune when nothing is staged", prep: func(w *hookWorld) {
		p := filepath.Join(w.ws, ".agent-harness", "outbox", "0123456789abcdef")
		w.file(filepath.Join(p, "old.txt"), "old")
		old(p)
	}, setup: outside("big", "0123456789"), maxBytes: 5,
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "big")})} }},
	{name: ".agent-harness is a link elsewhere", setup: outside("s.txt", "s"), prep: func(w *hookWorld) {
		os.MkdirAll(filepath.Join(w.out, "elsewhere"), 0o755)
		w.link(filepath.Join(w.out, "elsewhere"), filepath.Join(w.ws, ".agent-harness"))
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")})} }},
	{name: "outbox is a link", setup: outside("s.txt", "s"), prep: func(w *hookWorld) {
		os.MkdirAll(filepath.Join(w.out, "elsewhere"), 0o755)
		os.MkdirAll(filepath.Join(w.ws, ".agent-harness"), 0o755)
		w.link(filepath.Join(w.out, "elsewhere"), filepath.Join(w.ws, ".agent-harness", "outbox"))
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")})} }},
	{name: "a planted .gitignore link", setup: outside("s.txt", "s"), prep: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "victim"), "victim")
		w.link(filepath.Join(w.out, "victim"), filepath.Join(w.ws, ".agent-harness", "outbox", ".gitignore"))
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")})} }},
	{name: "a planted digest-folder link", setup: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "real.txt"), "s")
		w.link(filepath.Join(w.out, "real.txt"), filepath.Join(w.out, "given.txt"))
	}, prep: func(w *hookWorld) {
		os.MkdirAll(filepath.Join(w.out, "elsewhere"), 0o755)
		w.link(filepath.Join(w.out, "elsewhere"), filepath.Join(w.ws, ".agent-harness", "outbox", digestOf(w, filepath.Join(w.out, "real.txt"))))
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "given.txt")})} }},
	{name: "a planted target link", setup: outside("s.txt", "s"), prep: func(w *hookWorld) {
		w.file(filepath.Join(w.out, "victim"), "victim")
		w.link(filepath.Join(w.out, "victim"), filepath.Join(w.ws, ".agent-harness", "outbox", digestOf(w, filepath.Join(w.out, "s.txt")), "s.txt"))
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")})} }},
	{name: ".agent-harness is a file", setup: outside("s.txt", "s"),
		prep: func(w *hookWorld) { w.file(filepath.Join(w.ws, ".agent-harness"), "not a dir") },
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt"), "../out/s.txt"})}
		}},
	{name: ".gitignore is a directory", setup: outside("s.txt", "s"),
		prep:  func(w *hookWorld) { os.MkdirAll(filepath.Join(w.ws, ".agent-harness", "outbox", ".gitignore"), 0o755) },
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")})} }},
	{name: "the outbox is a file", setup: outside("s.txt", "s"),
		prep: func(w *hookWorld) { w.file(filepath.Join(w.ws, ".agent-harness", "outbox"), "x") },
		calls: func(w *hookWorld) []string {
			return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt") + "/"})}
		}},
	{name: "a digest folder is a file", setup: outside("s.txt", "s"), prep: func(w *hookWorld) {
		w.file(filepath.Join(w.ws, ".agent-harness", "outbox", digestOf(w, filepath.Join(w.out, "s.txt"))), "x")
	}, calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")})} }},
	{name: "an existing .gitignore is left as it is", setup: outside("s.txt", "s"),
		prep:  func(w *hookWorld) { w.file(filepath.Join(w.ws, ".agent-harness", "outbox", ".gitignore"), "custom\n") },
		calls: func(w *hookWorld) []string { return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")})} }},
	{name: "pass-through inputs", setup: outside("s.txt", "s"), calls: func(w *hookWorld) []string {
		s := filepath.Join(w.out, "s.txt")
		return []string{
			`{"tool_name": "Other", "cwd": "` + w.ws + `", "tool_input": {"files": ["` + s + `"]}}`,
			`{"tool_name": "SendUserFile", "tool_input": {"files": ["` + s + `"]}}`,
			`{"tool_name": "SendUserFile", "cwd": "ws", "tool_input": {"files": ["` + s + `"]}}`,
			`{"tool_name": "SendUserFile", "cwd": "` + w.ws + `/nope", "tool_input": {"files": ["` + s + `"]}}`,
			`{"tool_name": "SendUserFile", "cwd": "` + w.ws + `", "tool_input": "` + s + `"}`,
			`{"tool_name": "SendUserFile", "cwd": "` + w.ws + `", "tool_input": {"files": "` + s + `"}}`,
			`{"tool_name": "SendUserFile", "cwd": "` + w.ws + `", "tool_input": {"files": []}}`,
			`{"tool_name": "SendUserFile", "cwd": "` + w.ws + `", "tool_input": {}}`,
			`["SendUserFile"]`, `not json`, ``, `{"tool_name": "SendUserFile", "cwd": "` + w.ws + `", "tool_input": {"files": ["` + s + `"]}} trailing`,
		}
	}},
	{name: "duplicate keys: the last wins", setup: outside("d.txt", "d"), calls: func(w *hookWorld) []string {
		return []string{`{"tool_name": "Other", "tool_name": "SendUserFile", "cwd": "/nope", "cwd": "` + w.ws + `", "tool_input": {"files": [], "files": ["` + filepath.Join(w.out, "d.txt") + `"]}}`}
	}},
	{name: "a cwd given through ~ is not absolute", setup: outside("s.txt", "s"), calls: func(w *hookWorld) []string {
		return []string{`{"tool_name": "SendUserFile", "cwd": "~", "tool_input": {"files": ["` + filepath.Join(w.out, "s.txt") + `"]}}`}
	}},
	// The inputs where agent-host hook has bounds the script lacks (issue
	// 23), skipped: the script's answer is not the specification there.
	{name: "a call past 1 MiB", setup: outside("s.txt", "s"), calls: func(w *hookWorld) []string {
		return []string{payload(w.ws, []any{filepath.Join(w.out, "s.txt")}, `"caption": "`+strings.Repeat("x", 1<<20)+`"`)}
	}, differs: "input past senduserfile.MaxInput (1 MiB) is declined (TestHookStdinBounded); the script reads any length"},
	{name: "an empty digest folder a killed call left", setup: outside("s.txt", "s"), prep: func(w *hookWorld) {
		os.MkdirAll(filepath.Join(w.ws, ".agent-harness", "outbox", "0123456789abcdef"), 0o755)
	}, calls: one("../out/s.txt"),
		differs: "empty digest folders are removed by the next call (TestFailedStagingLeavesNoEmptyFolder); the script leaves them to the 14-day prune"},
	{name: "no session id", setup: outside("s.txt", "s"), calls: func(w *hookWorld) []string {
		return []string{`{"tool_name": "SendUserFile", "cwd": "` + w.ws + `", "tool_input": {"files": ["` + filepath.Join(w.out, "s.txt") + `"]}}`}
	}},
}
