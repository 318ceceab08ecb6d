#!/usr/bin/env bash
# Builds agent-host (static, as shipped) and measures `agent-host exec --
# true`, sandboxed and not, against `bash -c true`; and bwrap, srt and
# codex when they are on PATH. Extra arguments go to the benchmark
# (-runs N). OLD=<git revision> also builds that revision's agent-host and
# measures it in the same rounds (before and after a change). The floor
# programs (bench/sandbox/floor, and bench/sandbox/cfloor when a C
# compiler can link it static) are measured in the same rounds: how close
# to `bash -c true` any Go (or C) program that starts it comes here.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/agent-host" ./cmd/agent-host
CGO_ENABLED=0 go build -o "$dir/floor" ./bench/sandbox/floor
extra=(-floor "$dir/floor")
if cc -O2 -static -o "$dir/cfloor" bench/sandbox/cfloor/spawn.c 2>/dev/null; then
	extra+=(-cfloor "$dir/cfloor")
fi
if [ -n "${OLD:-}" ]; then
	mkdir "$dir/old"
	git archive "$OLD" | tar -x -C "$dir/old"
	(cd "$dir/old" && CGO_ENABLED=0 go build -o "$dir/agent-host-old" ./cmd/agent-host)
	extra+=(-old "$dir/agent-host-old")
fi
go run ./bench/sandbox -bin "$dir/agent-host" "${extra[@]}" "$@"
