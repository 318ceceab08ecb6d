package host

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// CheckSandbox tests, live, what the Host's sandbox policy enforces on
// this machine: it runs real commands, best effort, in a scratch
// workspace of its own (a temporary directory with a fake home and fake
// secrets, and listeners it starts on 127.0.0.1 only) and checks each
// promise from outside. Nothing of the user's is touched.
//
// The report's Enforced lists the promises that held ("no-write-outside",
// "no-secret-read", "no-network", "no-daemon-left", "no-plant",
// "no-outside-process"); Missing the ones that did not, each with what
// happened and the fix. The error is non-nil only when the check itself
// could not run (no temporary directory, a policy that is Off).
func (h *Host) CheckSandbox(ctx context.Context) (SandboxReport, error) {
	var rep SandboxReport
	if h.cfg.Sandbox.Off {
		return rep, fmt.Errorf("host: the sandbox policy is Off: there is nothing to check")
	}
	base, err := os.MkdirTemp("", "agenthost-check-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(base)
	if base, err = filepath.EvalSymlinks(base); err != nil {
		return rep, err
	}
	ws, out, home := filepath.Join(base, "ws"), filepath.Join(base, "outside"), filepath.Join(base, "home")
	for _, d := range []string{ws, out, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return rep, err
		}
	}
	const marker = "agenthost-check-secret-5e1"
	secrets := []string{filepath.Join(home, ".ssh", "id_check"), filepath.Join(home, ".pgpass")}
	for _, p := range secrets {
		if err := os.WriteFile(p, []byte(marker+"\n"), 0o600); err != nil {
			return rep, err
		}
	}
	victim := filepath.Join(out, "file")
	if err := os.WriteFile(victim, []byte("outside\n"), 0o644); err != nil {
		return rep, err
	}
	policy := h.cfg.Sandbox
	policy.BestEffort, policy.Required = true, false
	c, err := New(Config{WorkspaceRoot: ws, Home: home, Sandbox: policy})
	if err != nil {
		return rep, err
	}
	defer c.Close()
	run := func(cmd string) (ExecOutput, error) {
		return c.Exec(ctx, ExecRequest{Command: cmd, Timeout: 20 * time.Second, Env: []string{"HOME=" + home}})
	}
	held := func(name string, ok bool, what, fix string) {
		if ok {
			rep.Enforced = append(rep.Enforced, name)
			return
		}
		rep.Missing = append(rep.Missing, name+": "+what+" ("+fix+")")
	}
	first, err := run("true")
	if err != nil {
		return rep, err
	}
	if first.Sandbox != nil {
		rep.LandlockABI = first.Sandbox.LandlockABI
		for _, m := range first.Sandbox.Missing {
			rep.Missing = append(rep.Missing, "layer: "+m)
		}
	}

	// Writes and metadata outside the roots.
	o, err := run("echo x >> " + shq(victim) + "; chmod 600 " + shq(victim) + "; touch -d 2001-01-01 " + shq(victim) + "; true")
	st, serr := os.Stat(victim)
	b, _ := os.ReadFile(victim)
	held("no-write-outside", err == nil && serr == nil && string(b) == "outside\n" && st.Mode().Perm() == 0o644 && st.ModTime().Year() > 2001,
		"a command changed a file outside the roots", "needs Landlock (Linux 5.13+) and, for metadata, user namespaces or a seccomp filter with user notification (Linux 5.0+)")

	// Secrets, listed (.ssh) and not (.pgpass).
	o, err = run("cat " + shq(secrets[0]) + " " + shq(secrets[1]) + " 2>/dev/null; true")
	held("no-secret-read", err == nil && !strings.Contains(o.Stdout, marker),
		"a command read a secret of the home directory", "needs Landlock for the listed secrets and user namespaces for all")

	// The network: UDP and TCP to listeners of ours on loopback.
	if policy.Network {
		rep.Enforced = append(rep.Enforced, "network-allowed-by-policy")
	} else {
		var reached atomic.Int32
		udp, uerr := net.ListenPacket("udp4", "127.0.0.1:0")
		tcp, terr := net.Listen("tcp4", "127.0.0.1:0")
		if uerr == nil && terr == nil {
			go func() {
				buf := make([]byte, 64)
				for {
					if _, _, err := udp.ReadFrom(buf); err != nil {
						return
					}
					reached.Add(1)
				}
			}()
			go func() {
				for {
					conn, err := tcp.Accept()
					if err != nil {
						return
					}
					reached.Add(1)
					conn.Close()
				}
			}()
			_, up, _ := net.SplitHostPort(udp.LocalAddr().String())
			_, tp, _ := net.SplitHostPort(tcp.Addr().String())
			_, err = run("echo x > /dev/udp/127.0.0.1/" + up + "; echo x > /dev/tcp/127.0.0.1/" + tp + "; true")
			time.Sleep(50 * time.Millisecond)
			held("no-network", err == nil && reached.Load() == 0,
				"a command reached a listener on 127.0.0.1", "needs seccomp (amd64, arm64) or a network namespace")
		}
		if udp != nil {
			udp.Close()
		}
		if tcp != nil {
			tcp.Close()
		}
	}
	if !policy.Network && len(policy.AllowNet) > 0 {
		// The proxy answers, and refuses a name the policy does not
		// name (".invalid" never resolves; it is refused before any
		// lookup).
		o, err := run(`p=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${p%:*}/${p##*:} && printf 'GET http://agenthost-check.invalid/ HTTP/1.1\r\nHost: agenthost-check.invalid\r\n\r\n' >&3 && head -c 12 <&3; true`)
		held("net-by-name", err == nil && o.Stdout == "HTTP/1.1 403" && o.Sandbox != nil && len(o.Sandbox.NetDenied) == 1,
			"the proxy of --allow-net did not refuse a host the policy does not name", "needs the sandbox helper (SandboxMain)")
	}

	// A daemon in a new session.
	beat := filepath.Join(ws, "beat")
	// It waits (at most 5 s) for the daemon's first beat: a slow start
	// must not pass for a daemon that was ended.
	_, err = run("setsid sh -c 'while :; do echo x >> " + shq(beat) + "; sleep 0.02; done' </dev/null >/dev/null 2>&1 & for i in $(seq 500); do [ -s " + shq(beat) + " ] && break; sleep 0.01; done")
	s1, _ := os.Stat(beat)
	time.Sleep(200 * time.Millisecond)
	s2, _ := os.Stat(beat)
	held("no-daemon-left", err == nil && s1 != nil && s2 != nil && s1.Size() == s2.Size(),
		"a daemon a command started outlived it", "needs the sandbox helper (SandboxMain) and a PID namespace or /proc")

	// A plant that runs later.
	envrc := filepath.Join(ws, ".envrc")
	_, err = run("echo 'touch /tmp/pwned' > .envrc")
	_, perr := os.Lstat(envrc)
	held("no-plant", err == nil && os.IsNotExist(perr), "a command left an .envrc that direnv would run", "needs the sandbox helper (SandboxMain)")

	// Outside processes.
	o, err = run("test -e /proc/" + strconv.Itoa(os.Getpid()) + " && echo visible; true")
	held("no-outside-process", err == nil && !strings.Contains(o.Stdout, "visible"),
		"a command sees processes outside its tree in /proc", "needs user namespaces (a PID namespace and the view)")
	return rep, nil
}

// shq quotes s for the shell.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
