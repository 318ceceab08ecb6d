#!/usr/bin/env bash
# What --allow-net costs: the start of a sandboxed command with and
# without it (interleaved, medians; with user namespaces and without), then the proxy's added latency for
# one HTTPS request and its throughput for a 100 MiB download, against
# direct connections on loopback (p50 and p99; MB/s). Extra arguments go
# to the start measurement (-runs N).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/agent-host" ./cmd/agent-host
go build -o "$dir/allownet" ./bench/allownet
mkdir "$dir/ws"
(cd "$dir/ws" && "$dir/allownet" -bin "$dir/agent-host" "$@")
# The second layer, where user namespaces are refused (as in Docker or on
# Ubuntu 23.10+): the proxy listens on this machine's loopback and the
# helper supervises every connect.
if unshare --user --map-root-user true 2>/dev/null; then
	echo "-- without user namespaces"
	(cd "$dir/ws" && unshare --user --map-root-user sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"' sh \
		"$dir/allownet" -bin "$dir/agent-host" -best-effort "$@")
fi
go test -run '^$' -bench 'HTTPSRequest' -benchtime 2000x -count 3 ./host/exec/internal/netproxy/ | grep -E 'p50|^ok'
go test -run '^$' -bench 'HTTPSThroughput' -benchtime 5x -count 3 ./host/exec/internal/netproxy/ | grep -E 'MB/s|^ok'
