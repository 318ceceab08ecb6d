package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func init() {
	register("sandbox", "what this machine's sandbox enforces: sandbox check (a live self-test, exit 1 when a promise fails) | sandbox apparmor-profile", cmdSandbox)
	synopses["sandbox"] = "sandbox check [flags] | sandbox apparmor-profile"
}

// cmdSandbox is `agent-host sandbox check`, which runs host.CheckSandbox
// with the sandbox flags' policy and prints each promise, held or not
// (with --json, the report), and `agent-host sandbox apparmor-profile`,
// which prints the AppArmor profile that lets this agent-host make user
// namespaces on Ubuntu 23.10 and later.
func cmdSandbox(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newFlagSet("sandbox", stderr)
	warn := addSandboxFlags(fs, hf, stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 || (pos[0] != "check" && pos[0] != "apparmor-profile") {
		return usageFail(stderr, "sandbox", "want `check` or `apparmor-profile`")
	}
	if pos[0] == "apparmor-profile" {
		io.WriteString(stdout, apparmorProfile())
		return 0
	}
	warn()
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "sandbox", err, 2)
	}
	defer h.Close()
	rep, err := h.CheckSandbox(context.Background())
	if err != nil {
		return fail(stderr, "sandbox", err, 2)
	}
	if hf.json {
		json.NewEncoder(stdout).Encode(rep)
	} else {
		if rep.LandlockABI > 0 {
			fmt.Fprintf(stdout, "landlock ABI %d\n", rep.LandlockABI)
		}
		for _, p := range rep.Enforced {
			fmt.Fprintf(stdout, "ok      %s\n", p)
		}
		for _, m := range rep.Missing {
			fmt.Fprintf(stdout, "MISSING %s\n", m)
		}
	}
	if len(rep.Missing) > 0 {
		return 1
	}
	return 0
}

// apparmorProfile is an AppArmor profile for this executable that allows
// it user namespaces, which Ubuntu 23.10 and later refuse unprivileged
// programs (kernel.apparmor_restrict_unprivileged_userns=1). It confines
// nothing else: agent-host's own sandbox does.
func apparmorProfile() string {
	exe, err := os.Executable()
	if err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
	} else {
		exe = "/usr/local/bin/agent-host"
	}
	name := "agent-host"
	return strings.Join([]string{
		"# AppArmor profile: lets " + exe + " make the user namespaces its command",
		"# sandbox needs (Ubuntu 23.10 and later refuse them to unprivileged programs).",
		"# Install, as root:",
		"#   agent-host sandbox apparmor-profile > /etc/apparmor.d/" + name,
		"#   apparmor_parser -r /etc/apparmor.d/" + name,
		"# then `agent-host sandbox check` should report no missing namespaces.",
		"abi <abi/4.0>,",
		"include <tunables/global>",
		"",
		"profile " + name + " " + exe + " flags=(unconfined) {",
		"  userns,",
		"",
		"  include if exists <local/" + name + ">",
		"}",
		"",
	}, "\n")
}
