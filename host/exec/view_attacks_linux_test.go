package exec

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The view (docs/adr/0014): each test runs real commands in the
// sandbox and checks from outside that what it tried did not happen,
// and, where the point is prevention, that the kernel refused it at the
// time (EROFS, ENOENT) rather than a restore undoing it afterwards.

// viewSecrets are credential files that no deny list of ours names
// (DefaultDenyRead does not): in the view the home directory holds only
// the toolchains, so they are absent whatever their names.
var viewSecrets = []string{
	".config/git/credentials", ".pgpass", ".my.cnf", ".config/github-copilot/hosts.json",
	".config/github-copilot/apps.json", ".cache/huggingface/token", ".huggingface/token",
	".config/sops/age/keys.txt", ".age/key.txt", ".config/Bitwarden/data.json",
	".local/share/password-store-alt/x.gpg", ".config/keepassxc/keepassxc.ini", ".zsh_history",
	".bash_history", ".lesshst", ".viminfo", ".wget-hsts", ".config/stripe/config.toml",
	".config/heroku/config.json", ".netlify/config.json", ".config/doctl/config.yaml",
	".fly/config.yml", ".oci/config", ".s3cfg", ".boto", ".twilio-cli/config.json",
	".config/configstore/firebase-tools.json", ".config/netlify/config.json",
	".vagrant.d/insecure_private_key", ".dbt/profiles.yml", ".databrickscfg",
	".snowflake/connections.toml", ".pulumi/credentials.json", ".config/openai/key",
	".anthropic/key", ".env", "notes/passwords.txt",
}

func requireView(t *testing.T) {
	t.Helper()
	if err := osexec.Command("unshare", "-Urm", "true").Run(); err != nil {
		t.Skipf("skipped: user and mount namespaces are not available (unshare -Urm: %v)", err)
	}
}

func TestViewSecretsAbsent(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	var paths []string
	for i, s := range viewSecrets {
		p := filepath.Join(f.home, s)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(fmt.Sprintf("%s-view-%d\n", secretMarker, i)), 0o600))
		paths = append(paths, p)
	}
	// Another project's .env next to the workspace.
	env := filepath.Join(f.other, ".env")
	must(t, os.WriteFile(env, []byte(secretMarker+"-dotenv\n"), 0o600))
	paths = append(paths, env)

	cmd := `for p in "$@"; do cat "$p"; done; grep -r . "$HOME" "$OTHER" 2>/dev/null; cat /etc/shadow /etc/gshadow`
	out := f.run(t, "bash -c '"+cmd+"' x "+strings.Join(paths, " "))
	if strings.Contains(out.Stdout, secretMarker) {
		t.Errorf("the command read a secret:\n%s", out.Stdout)
	}
	if strings.Contains(out.Stdout, "root:") {
		t.Errorf("the command read /etc/shadow:\n%s", out.Stdout)
	}
	// Absent, not denied: the names do not exist in the view.
	if !strings.Contains(out.Stderr, "No such file or directory") {
		t.Errorf("want the secrets absent (ENOENT), got:\n%s", out.Stderr)
	}
	if !out.Sandbox.On("view") {
		t.Errorf("the run reports no view: %+v", out.Sandbox)
	}
}

// TestMetadataOutsideRefused: chmod, chown, utimes and xattr removal of
// files outside the roots fail at the call, in both layers: the view's
// read-only mounts refuse them (EROFS), and without a view the helper's
// supervision of those calls (internal/helper/meta_linux.go) does (EPERM),
// through a link in the workspace, a descriptor of a readable file or a
// directory descriptor too. The same calls on the workspace still work.
func TestMetadataOutsideRefused(t *testing.T) {
	f := newSBFixture(t)
	if !secondLayer() {
		requireView(t)
	}
	key := filepath.Join(f.home, ".ssh", "key")
	must(t, os.Chmod(key, 0o600))
	other := filepath.Join(f.other, "file")
	old := time.Unix(1_000_000_000, 0)
	must(t, os.Chtimes(other, old, old))
	must(t, os.Symlink(other, filepath.Join(f.ws, "to-other")))
	// A file in the system directories the command can read: writable
	// for root outside, so only the view's read-only mount or the
	// supervision stops it.
	sys := f.etcFile
	cmds := []string{
		"chmod 644 " + key, "chmod 777 " + other, "touch " + other, "truncate -s 0 " + other,
		"chmod 777 to-other", "touch to-other", "chown $(id -u):$(id -g) to-other",
		"touch -d 2001-01-01 " + other, "chmod 777 " + f.other,
	}
	if sys != "" {
		cmds = append(cmds, "chmod 777 "+sys+" 2>&1; touch "+sys+" 2>&1; truncate -s 0 "+sys+" 2>&1; chown 1:1 "+sys+" 2>&1")
	}
	if f.python != "" {
		cmds = append(cmds, `"$PY" -c 'import os,sys; os.utime(sys.argv[1], (0, 0))' `+other)
		if sys != "" {
			// Through descriptors: the file opened for reading, then
			// fchmod, fchown, futimens; and through a directory's.
			cmds = append(cmds,
				`"$PY" -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fchmod(fd, 0o777)' `+sys,
				`"$PY" -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fchown(fd, 1, 1)' `+sys,
				`"$PY" -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.utime(fd, (0, 0))' `+sys,
				`"$PY" -c 'import os,sys; d=os.open(os.path.dirname(sys.argv[1]), os.O_PATH); os.chmod(os.path.basename(sys.argv[1]), 0o777, dir_fd=d)' `+sys,
				`"$PY" -c 'import os,sys; os.removexattr(sys.argv[1], "user.x")' `+sys)
		}
	}
	for _, c := range cmds {
		out := f.run(t, c)
		t.Logf("%s: %s", c, strings.TrimSpace(out.Stderr))
	}
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode changed: %v %v", key, st.Mode(), err)
	}
	st, err := os.Stat(other)
	must(t, err)
	if st.Mode().Perm() != 0o644 || !st.ModTime().Equal(old) || st.Size() == 0 {
		t.Errorf("%s changed: mode %v, time %v, size %d", other, st.Mode(), st.ModTime(), st.Size())
	}
	if st, err := os.Stat(f.other); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("%s: mode changed: %v %v", f.other, st.Mode(), err)
	}
	if sys != "" {
		st, err := os.Stat(sys)
		must(t, err)
		sst := st.Sys().(*syscall.Stat_t)
		if st.Mode().Perm() == 0o777 || st.Size() == 0 || sst.Uid == 1 || st.ModTime().Unix() == 0 {
			t.Errorf("%s changed: mode %v, size %d, owner %d, time %v", sys, st.Mode(), st.Size(), sst.Uid, st.ModTime())
		}
		out := f.run(t, "chmod 777 "+sys)
		want := "Read-only file system"
		if secondLayer() {
			want = "Operation not permitted"
		}
		if !strings.Contains(out.Stderr, want) {
			t.Errorf("chmod of a system file: want %q at the call, got %q", want, out.Stderr)
		}
	}

	// The same calls on the workspace work, through a link in it too.
	must(t, os.WriteFile(filepath.Join(f.ws, "script.sh"), []byte("#!/bin/sh\necho ran\n"), 0o644))
	must(t, os.Symlink("script.sh", filepath.Join(f.ws, "to-script")))
	out := f.run(t, "chmod +x to-script && ./script.sh && touch -d 2001-01-01 script.sh && touch -h to-script && chown $(id -u):$(id -g) script.sh && echo ok")
	if !strings.Contains(out.Stdout, "ran") || !strings.Contains(out.Stdout, "ok") {
		t.Fatalf("metadata in the workspace: %+v", out)
	}
	st, err = os.Stat(filepath.Join(f.ws, "script.sh"))
	must(t, err)
	if st.Mode().Perm()&0o111 == 0 || st.ModTime().Year() != 2001 {
		t.Errorf("script.sh: mode %v, time %v: the workspace's chmod or touch did not happen", st.Mode(), st.ModTime())
	}
	if f.python != "" {
		out := f.run(t, `"$PY" -c 'import os; fd=os.open("script.sh", os.O_RDONLY); os.fchmod(fd, 0o700); os.utime(fd, (5, 5)); d=os.open(".", os.O_PATH); os.chmod("script.sh", 0o750, dir_fd=d); print("fd ok")'`)
		if !strings.Contains(out.Stdout, "fd ok") {
			t.Errorf("descriptor calls in the workspace: %+v", out)
		}
		if st, err := os.Stat(filepath.Join(f.ws, "script.sh")); err != nil || st.Mode().Perm() != 0o750 {
			t.Errorf("script.sh after the descriptor calls: %v %v", st.Mode(), err)
		}
	}
}

func TestViewProcShowsNoOutsideProcess(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	const mark = "agenthost-view-secret-arg-51f0"
	victim := &osexec.Cmd{Path: "/bin/sleep", Args: []string{"sleep", "60", mark}}
	if _, err := os.Stat(victim.Path); err != nil {
		victim.Path = "/usr/bin/sleep"
	}
	// sleep refuses a third argument: pass the mark as argv[0]'s
	// neighbour through the environment too.
	victim.Args = []string{mark, "60"}
	victim.Env = []string{"VICTIM=" + mark}
	must(t, victim.Start())
	defer func() { victim.Process.Kill(); victim.Wait() }()
	out := f.run(t, `cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n'; ls /proc | grep -c '^[0-9]'`)
	if strings.Contains(out.Stdout, mark) {
		t.Errorf("the command saw an outside process:\n%s", out.Stdout)
	}
	if out.Sandbox.On("view") && strings.Contains(strings.Join(out.Sandbox.Missing, ";"), "proc") {
		t.Errorf("the view has the host's /proc: %v", out.Sandbox.Missing)
	}
}

func TestViewProtectedRefusedAtWrite(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	must(t, os.WriteFile(filepath.Join(f.ws, ".envrc"), []byte("export A=1\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(f.ws, ".claude"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.ws, ".claude", "settings.json"), []byte("{}\n"), 0o644))
	b, err := os.ReadFile(filepath.Join(f.ws, ".git/info/exclude"))
	must(t, err)
	exclude := string(b)
	cases := []struct {
		cmd  string
		path string // must be unchanged from outside
		want string // its contents ("" : absent)
	}{
		{plant(".git/hooks/pre-commit"), filepath.Join(f.ws, ".git/hooks/pre-commit"), ""},
		{"echo 'touch $MARK' >> .envrc", filepath.Join(f.ws, ".envrc"), "export A=1\n"},
		{`echo '{"hooks":{}}' > .claude/settings.json`, filepath.Join(f.ws, ".claude", "settings.json"), "{}\n"},
		{"chmod 777 .git/hooks", "", ""},
		// A plant hidden from git status by an ignore rule.
		{"echo '*.sh' >> .git/info/exclude", filepath.Join(f.ws, ".git/info/exclude"), exclude},
		{plant("sub/inner/.git/hooks/post-checkout"), filepath.Join(f.ws, "sub/inner/.git/hooks/post-checkout"), ""},
	}
	for _, c := range cases {
		out := f.run(t, c.cmd, "MARK="+f.mark())
		if !strings.Contains(out.Stderr, "Read-only file system") {
			t.Errorf("%s: want EROFS when the command writes, got %q", c.cmd, out.Stderr)
		}
		if len(out.Sandbox.Restored) != 0 {
			t.Errorf("%s: a restore was needed (%v): the write was not prevented", c.cmd, out.Sandbox.Restored)
		}
		switch {
		case c.path == "":
		case c.want == "":
			absent(t, c.path)
		default:
			fileIs(t, c.path, c.want)
		}
	}
	commitRunsNothing(t, f, f.ws, "MARK="+f.mark())
	// Everyday git still works: the config stays writable for harmless
	// keys, commits write objects, refs and logs.
	out := f.run(t, "git config user.name someone && git commit -q --allow-empty -m in-view && git log --oneline | head -1")
	if out.ExitCode != 0 || !strings.Contains(out.Stdout, "in-view") {
		t.Errorf("git in the view: exit %d\n%s%s", out.ExitCode, out.Stdout, out.Stderr)
	}
}

// TestViewProtectedParentSwapped: the command cannot write a protected
// path that is bound read-only, so it moves the repository aside and
// plants in a new one; the after-run check must still catch that.
func TestViewProtectedParentSwapped(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	for _, c := range []string{
		"mv .git .git-aside && mkdir -p .git/hooks && cp -r .git-aside/. .git/ 2>/dev/null; " + plant(".git/hooks/pre-commit"),
		"mv .git/hooks .git/hooks-aside; mkdir .git/hooks && " + plant(".git/hooks/pre-commit"),
		"ln -sfn " + f.other + " .git/hooks-link && mv -T .git/hooks-link .git/hooks; " + plant(".git/hooks/pre-commit"),
	} {
		out := f.run(t, c, "MARK="+f.mark())
		t.Logf("%s: exit %d %s restored %v", c, out.ExitCode, strings.TrimSpace(out.Stderr), out.Sandbox.Restored)
		if _, err := os.Lstat(filepath.Join(f.ws, ".git-aside")); err == nil {
			os.RemoveAll(filepath.Join(f.ws, ".git"))
			must(t, os.Rename(filepath.Join(f.ws, ".git-aside"), filepath.Join(f.ws, ".git")))
		}
		commitRunsNothing(t, f, f.ws, "MARK="+f.mark())
		absent(t, filepath.Join(f.other, "pre-commit"))
	}
}

// TestViewSharedTmpAndOtherUsers: /tmp is the view's own, so a file
// another program left there (an agent's socket directory, a session's
// scratch file) is absent, and what the command writes there is gone.
func TestViewSharedTmpAbsent(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	out := f.run(t, "cat "+f.tmpFile+"; ls /tmp; echo leak > /tmp/agenthost-view-leak; echo ok")
	if strings.Contains(out.Stdout, "shared tmp") {
		t.Errorf("the command read the shared /tmp: %s", out.Stdout)
	}
	absent(t, "/tmp/agenthost-view-leak")
}

// TestViewStartDirSwapped: a start directory swapped for a link after
// the jail opened it is refused, never entered by its new path.
func TestViewStartDirSwapped(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	sub := filepath.Join(f.ws, "swap")
	must(t, os.Mkdir(sub, 0o755))
	dir, err := os.Open(sub)
	must(t, err)
	defer dir.Close()
	must(t, os.Rename(sub, sub+"-moved"))
	must(t, os.Symlink(f.other, sub))
	req := f.request("pwd; ls", f.sandbox())
	req.Cwd, req.Dir = sub, dir
	out, err := f.r.Exec(t.Context(), req)
	if err == nil && strings.Contains(out.Stdout, "file") && !strings.Contains(out.Stdout, "swap") {
		t.Errorf("the command started in the link's target:\n%s", out.Stdout)
	}
	if err == nil && !strings.Contains(out.Stdout, "swap-moved") {
		t.Errorf("the command did not start in the directory the jail opened:\n%s%s", out.Stdout, out.Stderr)
	}
}

// TestViewLinkedWorktree: a root that is a linked worktree whose main
// repository lies outside the roots can add and commit; the main
// repository's hooks and config stay read-only, and nothing else of it
// can be written.
func TestViewLinkedWorktree(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	main := filepath.Join(f.base, "mainrepo")
	must(t, os.Mkdir(main, 0o755))
	f.git(t, main, "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(main, "m.txt"), []byte("m\n"), 0o644))
	f.git(t, main, "add", "-A")
	f.git(t, main, "commit", "-qm", "main one")
	wt := filepath.Join(f.base, "wt")
	f.git(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	wtDir, err := os.Open(wt)
	must(t, err)
	defer wtDir.Close()
	sb := f.sandbox()
	sb.Roots, sb.RootDirs = []string{wt}, []*os.File{wtDir}
	run := func(cmd string) Output {
		t.Helper()
		req := f.request(cmd, sb, "MARK="+f.mark())
		req.Cwd, req.Dir = wt, wtDir
		out, err := f.r.Exec(t.Context(), req)
		must(t, err)
		return out
	}
	out := run("echo w > w.txt && git add w.txt && git commit -qm 'in worktree' && git log --oneline -1")
	if out.ExitCode != 0 || !strings.Contains(out.Stdout, "in worktree") {
		t.Fatalf("commit in a linked worktree: exit %d\n%s%s", out.ExitCode, out.Stdout, out.Stderr)
	}
	if log := f.git(t, main, "log", "--oneline", "-1", "feature"); !strings.Contains(log, "in worktree") {
		t.Errorf("the commit is not in the main repository: %s", log)
	}
	gitDir := filepath.Join(main, ".git")
	out = run(plant(filepath.Join(gitDir, "hooks", "pre-commit")) + "; git config --file " + filepath.Join(gitDir, "config") + " core.hooksPath /tmp; echo x > " + filepath.Join(main, "m.txt") + "; echo x > " + filepath.Join(gitDir, "description"))
	absent(t, filepath.Join(gitDir, "hooks", "pre-commit"))
	fileIs(t, filepath.Join(main, "m.txt"), "m\n")
	if v, err := f.gitTry(main, nil, "config", "core.hooksPath"); err == nil {
		t.Errorf("the main repository's config was changed: %s", v)
	}
	commitRunsNothing(t, f, main, "MARK="+f.mark())
}

// TestViewUserCacheLayer: a sandboxed go build reads the user's warm
// build cache (no package is compiled again) through a layer of its
// own, and neither the build nor a command that tries to poison the
// cache changes the user's cache. With the user's cache cold, the same
// build compiles: the check can fail.
func TestViewUserCacheLayer(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	gobin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("skipped: go is not on PATH")
	}
	mod := filepath.Join(f.ws, "mod")
	must(t, os.MkdirAll(mod, 0o755))
	must(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(mod, "main.go"), []byte("package main\n\nfunc main() { println(\"HI\") }\n"), 0o644))
	env := []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTELEMETRY=off"}
	build := func(sandboxed bool, cache string) Output {
		t.Helper()
		t.Setenv("GOCACHE", cache) // the user's cache, as the parent sees it
		cmd := "cd mod && " + gobin + " build -x -o prog . && ./prog"
		if !sandboxed {
			c := osexec.Command("bash", "-c", cmd)
			c.Dir = f.ws
			c.Env = append(os.Environ(), env...)
			out, err := c.CombinedOutput()
			if err != nil {
				t.Fatalf("unsandboxed build: %v\n%s", err, out)
			}
			return Output{}
		}
		r := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace, DefaultTimeout: 2 * time.Minute})
		defer r.Close()
		out, err := r.Exec(t.Context(), f.request(cmd, f.sandbox(), env...))
		must(t, err)
		if out.ExitCode != 0 || !strings.Contains(out.Stderr, "HI") {
			t.Fatalf("sandboxed build: exit %d\n%s%s", out.ExitCode, out.Stdout, out.Stderr)
		}
		return out
	}
	compiles := func(out Output) int { return strings.Count(out.Stderr, "/compile ") }

	warm := filepath.Join(f.base, "usercache")
	build(false, warm)
	before := treeListing(t, warm)
	out := build(true, warm)
	if n := compiles(out); n != 0 {
		t.Errorf("with the user's cache warm, the sandboxed build compiled %d packages", n)
	}
	// A poisoning attempt: write into the cache as the command sees it.
	req := f.request(`echo poison > "$GOCACHE/poison" && ls "$GOCACHE" | head -1 && for d in "$GOCACHE"/0*; do echo x >> "$d"/*-a 2>/dev/null; break; done; echo done`, f.sandbox())
	t.Setenv("GOCACHE", warm)
	pout, err := f.r.Exec(t.Context(), req)
	must(t, err)
	if !strings.Contains(pout.Stdout, "done") {
		t.Errorf("the poisoning command did not run: %+v", pout)
	}
	if after := treeListing(t, warm); after != before {
		t.Errorf("the user's cache changed under the sandbox")
	}

	cold := filepath.Join(f.base, "coldcache")
	must(t, os.Mkdir(cold, 0o755))
	if n := compiles(build(true, cold)); n == 0 {
		t.Errorf("with the user's cache cold the build compiled nothing: the warm check proves nothing")
	}
}

// treeListing is every file beneath dir with its size, mode and
// modification time.
func treeListing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v %d\n", p, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
		return nil
	})
	must(t, err)
	return b.String()
}

// TestViewForgedWorktree: a .git file the command wrote, naming another
// project's worktree administrative directory, does not make that
// repository visible or writable: the administrative directory does not
// name this .git back.
func TestViewForgedWorktree(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	main := filepath.Join(f.base, "victim")
	must(t, os.Mkdir(main, 0o755))
	f.git(t, main, "init", "-q", "-b", "main")
	f.git(t, main, "commit", "-q", "--allow-empty", "-m", "v")
	f.git(t, main, "worktree", "add", "-q", "-b", "side", filepath.Join(f.base, "victim-wt"))
	forged := filepath.Join(f.base, "forged")
	must(t, os.Mkdir(forged, 0o755))
	admin := filepath.Join(main, ".git", "worktrees", "victim-wt")
	must(t, os.WriteFile(filepath.Join(forged, ".git"), []byte("gitdir: "+admin+"\n"), 0o644))
	dir, err := os.Open(forged)
	must(t, err)
	defer dir.Close()
	sb := f.sandbox()
	sb.Roots, sb.RootDirs = []string{forged}, []*os.File{dir}
	req := f.request("ls "+filepath.Join(main, ".git")+"; echo x > "+filepath.Join(main, ".git", "refs", "planted")+"; echo x > "+filepath.Join(main, ".git", "objects", "planted"), sb)
	req.Cwd, req.Dir = forged, dir
	out, err := f.r.Exec(t.Context(), req)
	must(t, err)
	if strings.Contains(out.Stdout, "HEAD") {
		t.Errorf("the other repository is visible:\n%s", out.Stdout)
	}
	absent(t, filepath.Join(main, ".git", "refs", "planted"))
	absent(t, filepath.Join(main, ".git", "objects", "planted"))
}

// TestGitDirLinksRemoved: links a command leaves inside a git directory
// where git writes by name (a reflog, COMMIT_EDITMSG, an objects fan-out
// directory) are removed after the run, so the user's next git command
// does not write through them outside; links that were there before are
// kept.
func TestGitDirLinksRemoved(t *testing.T) {
	f := newSBFixture(t)
	victim := filepath.Join(f.other, "victim")
	must(t, os.WriteFile(victim, []byte("victim\n"), 0o644))
	kept := filepath.Join(f.ws, ".git", "kept-link")
	must(t, os.Symlink("HEAD", kept))
	out := f.run(t, "rm -f .git/logs/HEAD && ln -s "+victim+" .git/logs/HEAD && ln -s "+victim+" .git/COMMIT_EDITMSG && mkdir -p .git/logs/refs/heads && rm -f .git/logs/refs/heads/main && ln -s "+victim+" .git/logs/refs/heads/main && mv .git/objects/info .git/objects/info-aside && ln -s "+f.other+" .git/objects/info; echo done")
	if !strings.Contains(out.Stdout, "done") {
		t.Fatalf("the command did not run: %+v", out)
	}
	for _, p := range []string{".git/logs/HEAD", ".git/COMMIT_EDITMSG", ".git/logs/refs/heads/main", ".git/objects/info"} {
		if st, err := os.Lstat(filepath.Join(f.ws, p)); err == nil && st.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s is still a link after the run (restored: %v)", p, out.Sandbox.Restored)
		}
	}
	if _, err := os.Lstat(kept); err != nil {
		t.Errorf("a link that was there before the run was removed: %v", err)
	}
	f.gitTry(f.ws, nil, "commit", "-q", "--allow-empty", "-m", "after")
	fileIs(t, victim, "victim\n")
}

// TestViewCommandLineShowsNothing: a path a command line names is not
// made visible by being named (the line may be a model's): an unlisted
// secret of the home directory stays absent even as the first word.
func TestViewCommandLineShowsNothing(t *testing.T) {
	f := newSBFixture(t)
	requireView(t)
	p := filepath.Join(f.home, ".pgpass")
	must(t, os.WriteFile(p, []byte(secretMarker+"-pgpass\n"), 0o600))
	out := f.run(t, p+"; cat "+p+"; '"+p+"' x; cat "+filepath.Dir(p)+"/.pgpass")
	if strings.Contains(out.Stdout, secretMarker) {
		t.Errorf("naming a secret in the command line showed it:\n%s", out.Stdout)
	}
}

// TestMetadataLinkSwapRace: while a command chmods and touches a link in
// the workspace in a loop, the test swaps the link between a file of the
// workspace and a file outside: the outside file's mode and time never
// change (the supervision acts on the object it checked, not on a path
// looked up again), in both layers.
func TestMetadataLinkSwapRace(t *testing.T) {
	f := newSBFixture(t)
	if !secondLayer() {
		requireView(t)
	}
	outside := filepath.Join(f.other, "file")
	old := time.Unix(1_000_000_000, 0)
	must(t, os.Chmod(outside, 0o600))
	must(t, os.Chtimes(outside, old, old))
	inside := filepath.Join(f.ws, "inside")
	must(t, os.WriteFile(inside, []byte("in\n"), 0o600))
	link := filepath.Join(f.ws, "link")
	must(t, os.Symlink(inside, link))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tmp := link + ".new"
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := inside
			if i%2 == 1 {
				target = outside
			}
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				os.Rename(tmp, link)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()
	out := f.run(t, `i=0; while [ $i -lt 100 ]; do chmod 666 link 2>/dev/null; touch link 2>/dev/null; i=$((i+1)); done; echo done`)
	close(stop)
	<-done
	if !strings.Contains(out.Stdout, "done") {
		t.Fatalf("the loop did not run: %+v", out)
	}
	st, err := os.Stat(outside)
	must(t, err)
	if st.Mode().Perm() != 0o600 || !st.ModTime().Equal(old) {
		t.Errorf("%s changed through a swapped link: mode %v, time %v", outside, st.Mode(), st.ModTime())
	}
	if st, err := os.Stat(inside); err == nil && st.Mode().Perm() != 0o666 {
		t.Logf("the workspace file was never reached (mode %v): the swaps may have been too fast", st.Mode())
	}
}
