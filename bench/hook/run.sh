#!/usr/bin/env bash
# Builds agent-host and bench/hook/hookonly and measures the hook: start-up
# on a one-file payload (new copy, reused copy) and a 64 MiB copy against
# cp. Extra arguments go to the benchmark (-runs N, -copy-runs N,
# -copy-mib N, -before OLD for an earlier build interleaved). OLD is an
# agent-host binary, or else a git revision (main, HEAD~3, a commit): its
# tree is exported with git archive and built static beside this one.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
export CGO_ENABLED=0 # static, as shipped (README)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/agent-host" ./cmd/agent-host
go build -o "$dir/hookonly" ./bench/hook/hookonly
go build -o "$dir/empty" ./bench/hook/empty
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-before | --before)
		old=$2
		shift 2
		if [ ! -f "$old" ]; then
			rev=$(git rev-parse --verify --quiet "$old^{commit}") || {
				echo "run.sh: -before $old is neither a file nor a git revision" >&2
				exit 2
			}
			mkdir "$dir/old"
			git archive "$rev" | tar -x -C "$dir/old"
			(cd "$dir/old" && go build -o "$dir/agent-host-old" ./cmd/agent-host)
			echo "before: $old ($(git rev-parse --short "$rev"))"
			old=$dir/agent-host-old
		fi
		args+=(-before "$old")
		;;
	*)
		args+=("$1")
		shift
		;;
	esac
done
go run ./bench/hook -bin "$dir/agent-host" -hookonly "$dir/hookonly" -empty "$dir/empty" ${args[@]+"${args[@]}"}
