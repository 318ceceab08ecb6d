#!/usr/bin/env bash
# Builds agent-host (static, as shipped) and measures `agent-host exec --
# true`, sandboxed and not, against `bash -c true`; and bwrap, srt and
# codex when they are on PATH. Extra arguments go to the benchmark
# (-runs N).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/agent-host" ./cmd/agent-host
go run ./bench/sandbox -bin "$dir/agent-host" "$@"
