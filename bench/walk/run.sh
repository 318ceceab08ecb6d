#!/usr/bin/env bash
# Walk and IsPathIgnored benchmarks, both sides in one run, ratios printed.
#
#   bench/walk/run.sh [WORKDIR]     (default /tmp/agenthost-walk-bench)
#
# Needs git and ripgrep; fd-find is timed when installed (Debian: apt-get
# install ripgrep fd-find). Builds (once) in WORKDIR: tree/ (gentree,
# 120,000 files, nested .gitignore files) and goroot/ (a copy of
# $(go env GOROOT)), each made a git repository with every file added to
# the index (so the walks read a real index: about 10 MB for tree/). For
# each it checks that "agent-host walk" lists exactly git's set (git
# ls-files -co --exclude-standard) and "agent-host walk --no-hidden"
# exactly rg --files', then times agent-host walk --no-hidden (rg's set,
# index read included), rg --files, fdfind and git ls-files -co
# --exclude-standard (ROUNDS rounds, default 11; medians, ratios over rg,
# peak RSS). Then small/ (gentree, 10,000 files, every file in the index):
# "agent-host walk" (git's set) against git ls-files -co --exclude-standard,
# where the figure is the CPU ratio (user+sys, "cpu" column), then the
# floor of a Go walk (bench/walk/floor) and an empty Go program against
# the same git, both sides with no rules (walk --no-ignore against
# git ls-files -co) and the walk without the index (--no-index), then what
# the system calls that list git's directories cost alone (floor -calls).
# With
# MILLION=1, also million/ (gentree -files 1000000, about 4 GB of inodes
# and 10 minutes to build once) against rg --files. Then IsPathIgnored
# against git check-ignore on 10,000 sampled paths of tree/, and the whole
# check-ignore --stdin process against git's, both with --no-index, with
# the output to a regular file, a pipe and /dev/null and the paths in walk
# order (a run of the walk), random order and sparse (every k-th entry of
# the walk) (bench/walk/cistdin; peak RSS through /usr/bin/time; with
# BEFORE=path/to/an/older/agent-host that build is timed too, in the same
# rounds). With
# REF=.../server-filesystem/dist/index.js (npm install
# @modelcontextprotocol/server-filesystem), last the MCP walk and
# directory_tree tools of a plain copy of GOROOT (goroot-plain/, no .git)
# against that reference server's directory_tree (go run ./bench/mcp -walk).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${1:-/tmp/agenthost-walk-bench}
rounds=${ROUNDS:-11}
mkdir -p "$work/bin"
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/bin/agent-host" ./cmd/agent-host \
  && go build -o "$work/bin/cmpbench" ./bench/walk/cmpbench \
  && go build -o "$work/bin/ignorebench" ./bench/walk/ignorebench \
  && go build -o "$work/bin/cistdin" ./bench/walk/cistdin \
  && go build -o "$work/bin/gentree" ./bench/walk/gentree \
  && CGO_ENABLED=0 go build -o "$work/bin/floor" ./bench/walk/floor)
fd=$(command -v fdfind || command -v fd || true)

if [ ! -d "$work/tree/.git" ]; then
  rm -rf "$work/tree"
  "$work/bin/gentree" -files 120000 "$work/tree"
  git -C "$work/tree" init -q
  git -C "$work/tree" add -A
fi
if [ ! -d "$work/goroot/.git" ]; then
  rm -rf "$work/goroot"
  cp -a "$(go env GOROOT)" "$work/goroot"
  git -C "$work/goroot" init -q
  git -C "$work/goroot" add -A
fi

if [ ! -d "$work/small/.git" ]; then
  rm -rf "$work/small"
  "$work/bin/gentree" -files 10000 "$work/small"
  git -C "$work/small" init -q
  git -C "$work/small" add -A
fi
trees="tree goroot"
if [ "${MILLION:-0}" = 1 ]; then
  if [ ! -d "$work/million/.git" ]; then
    rm -rf "$work/million"
    "$work/bin/gentree" -files 1000000 "$work/million"
    git -C "$work/million" init -q
    git -C "$work/million" add -A
  fi
  trees="$trees million"
fi

for t in $trees; do
  d="$work/$t"
  echo "== $t: $(find "$d/" -path "$d/.git" -prune -o -type f -print | wc -l) files on disk"
  (cd "$d" && "$work/bin/agent-host" walk | LC_ALL=C sort > "$work/$t.ah")
  (cd "$d" && git -c core.quotePath=false ls-files -co --exclude-standard | LC_ALL=C sort > "$work/$t.git")
  (cd "$d" && "$work/bin/agent-host" walk --no-hidden | LC_ALL=C sort > "$work/$t.ah-nohidden")
  (cd "$d" && rg --files | LC_ALL=C sort > "$work/$t.rg")
  if cmp -s "$work/$t.ah" "$work/$t.git"; then
    echo "file set: identical to git ls-files -co --exclude-standard ($(wc -l < "$work/$t.git") files)"
  else
    echo "file set: DIFFERS from git:"; diff "$work/$t.git" "$work/$t.ah" | head -20 || true
  fi
  if cmp -s "$work/$t.ah-nohidden" "$work/$t.rg"; then
    echo "--no-hidden: identical to rg --files ($(wc -l < "$work/$t.rg") files)"
  else
    echo "--no-hidden: differs from rg --files in $(diff "$work/$t.rg" "$work/$t.ah-nohidden" | grep -c "^[<>]" || true) lines"
  fi
  fdtool=()
  [ -n "$fd" ] && fdtool=("fd=$fd --type f --type l")
  "$work/bin/cmpbench" -n "$rounds" -dir "$d" \
    "rg=rg --files" \
    "agent-host=$work/bin/agent-host walk --no-hidden" \
    "${fdtool[@]}" \
    "git=git ls-files -co --exclude-standard"
done

echo "== small: 10,000 files, agent-host walk (git's set) vs git ls-files -co --exclude-standard; the figure is cpu"
d="$work/small"
(cd "$d" && "$work/bin/agent-host" walk | LC_ALL=C sort > "$work/small.ah")
(cd "$d" && git -c core.quotePath=false ls-files -co --exclude-standard | LC_ALL=C sort > "$work/small.git")
if cmp -s "$work/small.ah" "$work/small.git"; then
  echo "file set: identical to git ls-files -co --exclude-standard ($(wc -l < "$work/small.git") files)"
else
  echo "file set: DIFFERS from git:"; diff "$work/small.git" "$work/small.ah" | head -20 || true
fi
"$work/bin/cmpbench" -n "$(( rounds * 2 + 1 ))" -dir "$d" \
  "git=git ls-files -co --exclude-standard" \
  "agent-host=$work/bin/agent-host walk"
echo "== small: the floor (bench/walk/floor: a Go walk with no rules and no index, all 10,016 files) and both sides without rules"
"$work/bin/cmpbench" -n "$(( rounds * 2 + 1 ))" -dir "$d" \
  "git=git ls-files -co --exclude-standard" \
  "floor=$work/bin/floor" \
  "empty-go=$work/bin/floor -empty" \
  "git-co=git ls-files -co" \
  "ah-no-ignore=$work/bin/agent-host walk --no-ignore" \
  "ah-no-index=$work/bin/agent-host walk --no-index"
echo "== small: the kernel's share, the system calls that list git's directories (floor -calls)"
(cd "$d" && "$work/bin/agent-host" walk --dirs | grep '/$' | "$work/bin/floor" -calls)

echo "== IsPathIgnored vs git check-ignore --stdin, 10,000 paths of tree/"
[ -f "$work/paths.txt" ] || "$work/bin/ignorebench" -repo "$work/tree" -write-paths "$work/paths.txt"
"$work/bin/ignorebench" -repo "$work/tree" -paths "$work/paths.txt" -n "$rounds" -git-index=false

echo "== check-ignore --stdin --no-index, whole processes, 10,000 paths of tree/: output to a file, a pipe and /dev/null, paths in walk, random and sparse order (bench/walk/cistdin)"
"$work/bin/cistdin" -repo "$work/tree" -bin "$work/bin/agent-host" ${BEFORE:+-before "$BEFORE"} -n "$rounds"

if [ -n "${REF:-}" ]; then
  echo "== MCP walk and directory_tree of goroot-plain/ vs the reference server's directory_tree"
  [ -d "$work/goroot-plain" ] || cp -a "$(go env GOROOT)" "$work/goroot-plain"
  (cd "$repo" && go run ./bench/mcp -walk "$work/goroot-plain" -walk-rounds "$rounds" -ref "$REF")
fi
