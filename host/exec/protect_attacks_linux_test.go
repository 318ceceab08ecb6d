package exec

import (
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// These rows are the security review's holes in the protected-set check
// (/work/notes/review.md, F1-F9), each a real command under the sandbox,
// checked from outside afterwards, mostly by running git the way the user
// would and seeing that nothing the command planted runs. Each row gets a
// fresh fixture: the rows change the repository's configuration.

// protRow is one attack on the protected set.
type protRow struct {
	name  string
	setup func(t *testing.T, f *sbFixture) // outside, before the run
	cmd   string                           // $MARK: a path outside the roots
	check func(t *testing.T, f *sbFixture, out Output)
}

// mark is the file a planted program makes when it runs outside the
// sandbox (the sandboxed command itself cannot write there).
func (f *sbFixture) mark() string { return filepath.Join(f.base, "PWNED") }

// gitTry runs git outside the sandbox as the user would, with extra
// environment, and returns its output and error.
func (f *sbFixture) gitTry(dir string, env []string, args ...string) (string, error) {
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), f.gitEnv()...), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// notRun checks that the planted program did not run.
func notRun(t *testing.T, f *sbFixture) {
	t.Helper()
	if b, err := os.ReadFile(f.mark()); err == nil {
		t.Errorf("a program planted by the command ran outside the sandbox: %s", b)
	}
}

// commitRunsNothing commits outside the sandbox and checks that no
// planted hook ran.
func commitRunsNothing(t *testing.T, f *sbFixture, dir string, env ...string) {
	t.Helper()
	out, err := f.gitTry(dir, env, "commit", "-q", "--allow-empty", "-m", "after")
	if err != nil {
		t.Logf("git commit: %v\n%s", err, out)
	}
	notRun(t, f)
}

// configLacks checks from outside, with git, that the repository at dir
// has no key.
func configLacks(key string, dir string) func(t *testing.T, f *sbFixture, out Output) {
	return func(t *testing.T, f *sbFixture, out Output) {
		t.Helper()
		if v, err := f.gitTry(filepath.Join(f.ws, dir), nil, "config", "--get-regexp", key); err == nil {
			t.Errorf("the config still holds %s after the run: %s", key, v)
		}
	}
}

const plantHook = `printf '#!/bin/sh\ntouch "$MARK"\n' > %s && chmod +x %s`

func plant(p string) string { return strings.ReplaceAll(plantHook, "%s", p) }

func protRows(t *testing.T) []protRow {
	realGit, err := osexec.LookPath("git")
	if err != nil {
		t.Skip("skipped: git is not installed")
	}
	realGit, _ = filepath.Abs(realGit)
	var rows []protRow

	// F1: a PATH entry inside a root; the command plants `git` there and
	// changes the config, which the old check read by running git.
	rows = append(rows, protRow{"F1 planted git on the parent's PATH",
		func(t *testing.T, f *sbFixture) {
			must(t, os.MkdirAll(filepath.Join(f.ws, ".venv", "bin"), 0o755))
			t.Setenv("PATH", filepath.Join(f.ws, ".venv", "bin")+":"+os.Getenv("PATH"))
		},
		`printf '#!/bin/sh\ntouch %s\nexec ` + realGit + ` "$@"\n' "$MARK" > .venv/bin/git && chmod +x .venv/bin/git && echo '# x' >> .git/config && echo '[core]' >> .git/config && echo ' hooksPath = hk' >> .git/config`,
		func(t *testing.T, f *sbFixture, out Output) {
			notRun(t, f)
			configLacks("core.hookspath", ".")(t, f, out)
		}})

	// F2: keys of allowed sections that run a program; each must make
	// the config be restored.
	for _, kv := range [][2]string{
		{"merge.evil.driver", "touch $MARK"}, {"gc.recentObjectsHook", "touch $MARK"},
		{"init.templateDir", "/tmp"}, {"pull.twohead", "evil"}, {"pull.octopus", "evil"},
		{"alias.st", "!touch $MARK"}, {"filter.x.clean", "touch $MARK"}, {"diff.x.textconv", "touch $MARK"},
		{"core.pager", "touch $MARK"}, {"core.editor", "touch $MARK"}, {"core.sshCommand", "touch $MARK"},
		{"core.fsmonitor", "touch $MARK"}, {"credential.helper", "!touch $MARK"}, {"include.path", "../inc"},
		{"remote.origin.uploadpack", "touch $MARK"}, {"remote.origin.vcs", "evil"},
		{"remote.origin.url", "ext::sh -c touch% $MARK"}, {"remote.x.url", "evil::foo"},
		{"submodule.m.update", "!touch $MARK"}, {"user.signingkey", "x"}, {"gpg.program", "touch"},
	} {
		rows = append(rows, protRow{"F2 " + kv[0], nil,
			`git config '` + kv[0] + `' "` + kv[1] + `" && git config user.name kept`,
			configLacks("^"+strings.ToLower(strings.SplitN(kv[0], ".", 2)[0])+`\.`+regexpTail(kv[0])+"$", ".")})
	}
	rows = append(rows, protRow{"F2 merge driver runs on the next merge",
		func(t *testing.T, f *sbFixture) {
			must(t, os.WriteFile(filepath.Join(f.ws, "m.txt"), []byte("base\n"), 0o644))
			f.git(t, f.ws, "add", "m.txt")
			f.git(t, f.ws, "commit", "-qm", "base")
			f.git(t, f.ws, "checkout", "-qb", "other")
			must(t, os.WriteFile(filepath.Join(f.ws, "m.txt"), []byte("other\n"), 0o644))
			f.git(t, f.ws, "commit", "-qam", "other")
			f.git(t, f.ws, "checkout", "-q", "main")
			must(t, os.WriteFile(filepath.Join(f.ws, "m.txt"), []byte("mine\n"), 0o644))
			f.git(t, f.ws, "commit", "-qam", "mine")
		},
		`git config merge.evil.driver 'touch "$MARK"; cp %B %A' && echo '* merge=evil' > .gitattributes`,
		func(t *testing.T, f *sbFixture, out Output) {
			f.gitTry(f.ws, []string{"MARK=" + f.mark()}, "merge", "other", "-m", "m")
			notRun(t, f)
		}})
	rows = append(rows, protRow{"F2 harmless keys are kept", nil,
		`git config user.name someone && git remote add origin https://example.com/r.git && git config branch.main.remote origin`,
		func(t *testing.T, f *sbFixture, out Output) {
			if v, _ := f.gitTry(f.ws, nil, "config", "remote.origin.url"); strings.TrimSpace(v) != "https://example.com/r.git" {
				t.Errorf("remote.origin.url = %q, want it kept; restored: %v", v, out.Sandbox)
			}
		}})

	// F4: the hooks directory named before the run is watched whatever
	// the command does to the config.
	hooksPathSet := func(hp string) func(t *testing.T, f *sbFixture) {
		return func(t *testing.T, f *sbFixture) {
			f.git(t, f.ws, "config", "core.hooksPath", hp)
			must(t, os.MkdirAll(filepath.Join(f.ws, hp), 0o755))
		}
	}
	rows = append(rows, protRow{"F4 hooksPath moved by the command", hooksPathSet("hk"),
		plant("hk/pre-commit") + ` && mkdir -p hk2 && git config core.hooksPath hk2`,
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, "hk/pre-commit"))
			commitRunsNothing(t, f, f.ws, "MARK="+f.mark())
		}})
	rows = append(rows, protRow{"F4 config broken by the command", hooksPathSet(".githooks"),
		plant(".githooks/pre-commit") + ` && echo '[[[' >> .git/config`,
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, ".githooks/pre-commit"))
			commitRunsNothing(t, f, f.ws, "MARK="+f.mark())
		}})
	rows = append(rows, protRow{"F4 nested repo hooksPath moved",
		func(t *testing.T, f *sbFixture) {
			f.git(t, filepath.Join(f.ws, "sub/inner"), "config", "core.hooksPath", "hk")
			must(t, os.MkdirAll(filepath.Join(f.ws, "sub/inner/hk"), 0o755))
		},
		`cd sub/inner && ` + plant("hk/pre-commit") + ` && git config core.hooksPath hk2`,
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, "sub/inner/hk/pre-commit"))
			commitRunsNothing(t, f, filepath.Join(f.ws, "sub/inner"), "MARK="+f.mark())
		}})

	// F5: hooksPath from the user's global config, config.worktree and
	// an included file.
	rows = append(rows, protRow{"F5 global relative hooksPath",
		func(t *testing.T, f *sbFixture) {
			g := filepath.Join(f.home, ".gitconfig")
			must(t, os.WriteFile(g, []byte("[core]\n\thooksPath = .githooks\n"), 0o644))
			t.Setenv("GIT_CONFIG_GLOBAL", g)
		},
		`mkdir -p .githooks && ` + plant(".githooks/pre-commit"),
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, ".githooks/pre-commit"))
			commitRunsNothing(t, f, f.ws, "MARK="+f.mark(), "GIT_CONFIG_GLOBAL="+filepath.Join(f.home, ".gitconfig"))
		}})
	rows = append(rows, protRow{"F5 global hooksPath under HOME",
		func(t *testing.T, f *sbFixture) {
			must(t, os.WriteFile(filepath.Join(f.home, ".gitconfig"), []byte("[core]\n\thooksPath = tools/hooks\n"), 0o644))
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			t.Setenv("HOME", f.home)
		},
		`mkdir -p tools/hooks && ` + plant("tools/hooks/pre-commit"),
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, "tools/hooks/pre-commit"))
			commitRunsNothing(t, f, f.ws, "MARK="+f.mark(), "GIT_CONFIG_GLOBAL="+filepath.Join(f.home, ".gitconfig"))
		}})
	rows = append(rows, protRow{"F5 config.worktree hooksPath",
		func(t *testing.T, f *sbFixture) {
			f.git(t, f.ws, "config", "extensions.worktreeConfig", "true")
			f.git(t, f.ws, "config", "--worktree", "core.hooksPath", "tools/hooks")
			must(t, os.MkdirAll(filepath.Join(f.ws, "tools/hooks"), 0o755))
		},
		plant("tools/hooks/pre-commit"),
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, "tools/hooks/pre-commit"))
			commitRunsNothing(t, f, f.ws, "MARK="+f.mark())
		}})
	rows = append(rows, protRow{"F5 included file",
		func(t *testing.T, f *sbFixture) {
			must(t, os.WriteFile(filepath.Join(f.ws, "repo.gitconfig"), []byte("[core]\n\thooksPath = myhk\n"), 0o644))
			f.git(t, f.ws, "config", "include.path", "../repo.gitconfig")
			must(t, os.MkdirAll(filepath.Join(f.ws, "myhk"), 0o755))
		},
		plant("myhk/pre-commit") + ` && printf '[core]\n\tfsmonitor = touch "$MARK"\n' >> repo.gitconfig`,
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, "myhk/pre-commit"))
			fileIs(t, filepath.Join(f.ws, "repo.gitconfig"), "[core]\n\thooksPath = myhk\n")
			commitRunsNothing(t, f, f.ws, "MARK="+f.mark())
		}})

	// F6: a bare repository under any name.
	rows = append(rows, protRow{"F6 planted bare repo with fsmonitor", nil,
		`mkdir -p docs && git init -q --bare docs/x && git -C docs/x config core.bare false && git -C docs/x config core.worktree .. && git -C docs/x config core.fsmonitor 'touch "$MARK"; false'`,
		func(t *testing.T, f *sbFixture, out Output) {
			f.gitTry(filepath.Join(f.ws, "docs/x"), []string{"MARK=" + f.mark()}, "status")
			notRun(t, f)
		}})
	rows = append(rows, protRow{"F6 hook in an existing bare repo",
		func(t *testing.T, f *sbFixture) { f.git(t, f.ws, "init", "-q", "--bare", "fixture.git") },
		plant("fixture.git/hooks/pre-receive"),
		func(t *testing.T, f *sbFixture, out Output) {
			absent(t, filepath.Join(f.ws, "fixture.git/hooks/pre-receive"))
		}})

	// F9: the hook frameworks' configs and dev containers.
	for _, p := range []string{".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", ".devcontainer/devcontainer.json", "sub/lefthook.yml"} {
		rows = append(rows, protRow{"F9 " + p, nil,
			`mkdir -p "$(dirname ` + p + `)" && echo 'evil: touch $MARK' > ` + p,
			func(t *testing.T, f *sbFixture, out Output) { absent(t, filepath.Join(f.ws, p)) }})
	}
	return rows
}

// regexpTail is the part of key after its section as a git
// --get-regexp pattern (dots quoted, the name lower-cased).
func regexpTail(key string) string {
	_, rest, _ := strings.Cut(key, ".")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return strings.ToLower(rest)
	}
	return strings.ReplaceAll(rest[:i], ".", `\.`) + `\.` + strings.ToLower(rest[i+1:])
}

// TestProtectAttacks runs the rows.
func TestProtectAttacks(t *testing.T) {
	requireSandbox(t)
	for _, r := range protRows(t) {
		t.Run(r.name, func(t *testing.T) {
			f := newSBFixture(t)
			if r.setup != nil {
				r.setup(t, f)
			}
			out := f.run(t, r.cmd, "MARK="+f.mark())
			r.check(t, f, out)
			if t.Failed() || testing.Verbose() {
				t.Logf("stdout: %s\nstderr: %s\nreport: %+v", out.Stdout, out.Stderr, out.Sandbox)
			}
		})
	}
}

// TestProtectOverlappingRuns is F3: a run that starts while another one
// plants a hook must not take the plant as its baseline and write it
// back after the first run removed it.
func TestProtectOverlappingRuns(t *testing.T) {
	f := newSBFixture(t)
	hook := filepath.Join(f.ws, ".git/hooks/pre-commit")
	var wg sync.WaitGroup
	var outA, outB Output
	wg.Add(2)
	go func() {
		defer wg.Done()
		outA, _ = f.r.Exec(context.Background(), f.request(plant(".git/hooks/pre-commit")+" && sleep 0.8", f.sandbox(), "MARK="+f.mark()))
	}()
	time.Sleep(300 * time.Millisecond) // A has planted; B ends after A
	go func() {
		defer wg.Done()
		outB, _ = f.r.Exec(context.Background(), f.request("sleep 1.2", f.sandbox()))
	}()
	wg.Wait()
	absent(t, hook)
	commitRunsNothing(t, f, f.ws, "MARK="+f.mark())
	if t.Failed() {
		t.Logf("A: %+v\nB: %+v", outA.Sandbox, outB.Sandbox)
	}
}

// TestProtectWaitsForOtherProcess is F3 across processes: a sandboxed run
// waits while another holder (as another agent-host would) has the
// root's flock.
func TestProtectWaitsForOtherProcess(t *testing.T) {
	f := newSBFixture(t)
	fd, err := unix.Open(f.ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	must(t, err)
	defer unix.Close(fd)
	must(t, unix.Flock(fd, unix.LOCK_EX))
	done := make(chan Output)
	go func() {
		out, _ := f.r.Exec(context.Background(), f.request("true", f.sandbox()))
		done <- out
	}()
	select {
	case <-done:
		t.Fatal("the run did not wait for the other holder of the root")
	case <-time.After(300 * time.Millisecond):
	}
	unix.Flock(fd, unix.LOCK_UN)
	select {
	case out := <-done:
		if out.ExitCode != 0 {
			t.Errorf("exit %d", out.ExitCode)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not start after the other holder let go")
	}
}

// TestSandboxDeniesMoreSecrets is F7: the files the review could read,
// named here (not taken from DefaultDenyRead, so that dropping one from
// the list fails).
func TestSandboxDeniesMoreSecrets(t *testing.T) {
	f := newSBFixture(t)
	for _, p := range []string{
		".claude/.credentials.json", ".codex/auth.json", ".cargo/credentials.toml", ".config/gh/hosts.yml",
		".terraform.d/credentials.tfrc.json", ".bash_history", ".zsh_history", ".python_history",
		".psql_history", ".mysql_history", ".mozilla/firefox/p/cookies.sqlite",
		".config/google-chrome/Default/Cookies", ".config/chromium/Default/Cookies",
	} {
		full := filepath.Join(f.home, p)
		if fi, err := os.Stat(full); err == nil && fi.IsDir() {
			full = filepath.Join(full, "more")
		}
		os.RemoveAll(full)
		for d := filepath.Dir(full); d != f.home; d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
				os.Remove(d) // the fixture made it a file
			}
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte("SECRET-F7\n"), 0o600))
		out := f.run(t, "cat "+full)
		if strings.Contains(out.Stdout+out.Stderr, "SECRET-F7") {
			t.Errorf("read ~/%s", p)
		}
	}
}

// TestSandboxScrubsMoreEnv is F8: variables that carry credentials
// under names the first list missed, and a password in a URL.
func TestSandboxScrubsMoreEnv(t *testing.T) {
	f := newSBFixture(t)
	secret := map[string]string{
		"GITLAB_PAT": "glpat-F8", "DATABASE_URL": "postgres://u:pwF8@h/db", "SMTP_PASS": "F8",
		"MYSQL_PWD": "F8", "SENTRY_DSN": "https://F8@sentry.example/1", "CI_JOB_JWT": "F8",
		"NETRC": "machine h password F8", "UPSTREAM": "https://bob:hunterF8@example.com/x.git",
		"REDIS": "redis://:pwF8@localhost:6379", "X_AUTH": "F8",
	}
	for k, v := range secret {
		t.Setenv(k, v)
	}
	kept := map[string]string{"MY_AUTHOR": "keep-author", "HOMEPAGE": "https://example.com/a@b", "PLAIN_URL": "https://u@example.com/"}
	for k, v := range kept {
		t.Setenv(k, v)
	}
	out := f.run(t, "env")
	for k := range secret {
		if strings.Contains(out.Stdout, k+"=") {
			t.Errorf("%s was passed", k)
		}
	}
	for k, v := range kept {
		if !strings.Contains(out.Stdout, k+"="+v) {
			t.Errorf("%s was not passed", k)
		}
	}
}
