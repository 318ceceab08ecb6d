package exec

import (
	"os"
	"strings"
)

// Missing returns, without running anything, the parts of a sandbox this
// system or program will not give, each with the reason and the fix, as
// a run's Report.Missing would name them: the helper (SandboxMain not
// called), Landlock, the seccomp filter, and the user namespaces that
// make the view, where the kernel is known to refuse them (a sysctl, an
// earlier refused start). A refusal no setting shows (Docker's seccomp
// profile) is found by the first run. It is what a best-effort caller
// says before the command starts.
func Missing() []string {
	var out []string
	if why := helperUnavailable(); why != "" {
		out = append(out, "helper: "+why)
	}
	if landlockABI() == 0 {
		out = append(out, "landlock: the kernel has no Landlock (Linux 5.13 or newer, with landlock in lsm=)")
	}
	if !haveSeccomp {
		out = append(out, "seccomp: no filter for this architecture")
	}
	if why := usernsRefused(); why != "" {
		out = append(out, "namespaces: "+why+": "+noViewMeans)
	}
	return out
}

// noViewMeans is what a run without namespaces lacks, and how to get
// them back: a run's Report.Missing and Missing say it alike.
const noViewMeans = "no view (Landlock still limits reads to the view's list and writes to the roots, and the helper refuses chmod, chown and utimes outside the roots, but the command sees every process in /proc), and plants are only undone after the run; on Ubuntu install the profile `agent-host sandbox apparmor-profile` prints, in Docker run with --security-opt seccomp=unconfined or a profile that allows clone(CLONE_NEWUSER), or run with --sandbox=best-effort"

// usernsSurelyRefused says which setting makes the kernel refuse every
// user namespace this process would make, "" when none does.
func usernsSurelyRefused() string {
	if readSysctl("/proc/sys/user/max_user_namespaces") == "0" {
		return "user.max_user_namespaces is 0"
	}
	if os.Geteuid() != 0 && readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return "kernel.unprivileged_userns_clone is 0"
	}
	return ""
}

// readSysctl returns the setting at p, trimmed ("" when it cannot be read).
func readSysctl(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// usernsRefused says why this system refuses an unprivileged user
// namespace, "" when nothing says it does.
func usernsRefused() string {
	if nsBroken.Load() {
		return "a start in new namespaces was refused"
	}
	if why := usernsSurelyRefused(); why != "" {
		return why
	}
	if os.Geteuid() != 0 {
		if readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" {
			return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1; `agent-host sandbox apparmor-profile` prints a profile that allows them for agent-host)"
		}
	}
	return ""
}
