#!/usr/bin/env bash
# Runs the sandbox's attack table and everyday commands (host/exec's
# TestSandboxAttacks and TestSandboxStillWorks) under OpenAI's Codex CLI
# sandbox (workspace-write, network off) and Anthropic's sandbox runtime
# (srt, with the same secrets denied and the workspace writable), and
# prints how many attacks got through and how many commands broke for
# each. Needs codex and srt on PATH (npm: @openai/codex,
# @anthropic-ai/sandbox-runtime; srt needs bubblewrap, socat and ripgrep).
# The fixture lives outside /tmp (TMPDIR below), where a real project
# would, so that codex's writable /tmp does not count against it.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d /var/tmp/agenthost-compare-XXXXXX)
trap 'rm -rf "$work"' EXIT
gocache=$(go env GOCACHE)
mkdir -p "$work/codexhome" "$work/tmp" "$work/t"
cat > "$work/codex.sh" <<WRAP
#!/bin/sh
export CODEX_HOME="$work/codexhome"
exec codex sandbox -c 'sandbox_mode="workspace-write"' -c 'sandbox_workspace_write.writable_roots=["$gocache"]' -- "\$@"
WRAP
chmod +x "$work/codex.sh"
cat > "$work/srt.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": ["~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gcloud", "~/.azure", "~/.kube",
   "~/.docker/config.json", "~/.netrc", "~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.config/gh",
   "~/.password-store", "~/.vault-token", "~/custom-secret.txt"],
  "allowWrite": [".", "$gocache"], "denyWrite": []}}
JSON
mkdir -p /tmp/claude # srt's TMPDIR, which Claude Code makes
echo "(agenthost: its own run fails on any attack that gets through or command that breaks)"
for w in "$work/codex.sh" "srt -s $work/srt.json" ""; do
	echo "== ${w:-agenthost}"
	TMPDIR="$work/tmp" AGENTHOST_SANDBOX_COMPARE="$w" AGENTHOST_SANDBOX_COMPARE_TMPDIR="$work/t" go test -count=1 -v -run 'TestSandboxAttacks$|TestSandboxStillWorks$' ./host/exec/ |
		grep -E 'under|^(--- )?(PASS|FAIL|ok)' | grep -v '^    ---' || true
done
