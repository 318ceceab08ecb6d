#!/usr/bin/env bash
# Builds agent-host and bench/hook/hookonly and measures the hook: start-up
# on a one-file payload (new copy, reused copy) and a 64 MiB copy against
# cp. Extra arguments go to the benchmark (-runs N, -copy-runs N,
# -copy-mib N, -before OLD-AGENT-HOST for an earlier build interleaved).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
export CGO_ENABLED=0 # static, as shipped (README)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/agent-host" ./cmd/agent-host
go build -o "$dir/hookonly" ./bench/hook/hookonly
go build -o "$dir/empty" ./bench/hook/empty
go run ./bench/hook -bin "$dir/agent-host" -hookonly "$dir/hookonly" -empty "$dir/empty" "$@"
