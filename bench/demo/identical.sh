#!/usr/bin/env bash
# Shows that a change leaves the demo's release files byte-identical: builds
# lovbench at BASE (a git revision, default the merge base with main) and at
# the working tree, runs `lovbench demo` with the same seed and sizes in two
# fresh directories, and compares every file of the two releases.
#
# usage: bench/demo/identical.sh [BASE] [demo flags...]
#   e.g. bench/demo/identical.sh main --serps 4000 --queries 100
# Prints one line per differing file and exits 1 if any differs.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
base=${1:-$(git merge-base HEAD main)}
shift || true
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$base"
(cd "$tmp/base" && go build -o "$tmp/lovbench-base" ./cmd/lovbench)
go build -o "$tmp/lovbench-head" ./cmd/lovbench
for v in base head; do
	"$tmp/lovbench-$v" -q demo --out "$tmp/demo-$v" "$@" >/dev/null
done
# The release directory is named after the time of the run; compare the
# files under it. The version line of the report names the build, which is
# the same "(devel)" for both.
a=$(ls -d "$tmp"/demo-base/releases/2*/ | head -1)
b=$(ls -d "$tmp"/demo-head/releases/2*/ | head -1)
# Stage fingerprints include the program's identity (workdir.codeIdentity,
# the executable's content hash: another build reruns every stage), so release.json and the report's stage
# table differ between any two builds; they are compared with the
# fingerprints masked. Every other byte must be equal.
mask() {
	case "$1" in
	*release.json) sed -E 's/"[0-9a-f]{64}"/"<fingerprint>"/g' "$1" ;;
	*report.html) sed -E 's#<code>[0-9a-f]{16}</code>#<code>fingerprint</code>#g' "$1" ;;
	*) cat "$1" ;;
	esac
}
status=0
while IFS= read -r f; do
	if ! cmp -s <(mask "$a/$f") <(mask "$b/$f"); then
		echo "differs: $f"
		status=1
	fi
done < <(cd "$a" && find . -type f | sort)
if ! diff <(cd "$a" && find . -type f | sort) <(cd "$b" && find . -type f | sort) >/dev/null; then
	echo "the two releases hold different files"
	status=1
fi
n=$(cd "$a" && find . -type f | wc -l)
if [ $status -eq 0 ]; then
	echo "demo release byte-identical to $(git rev-parse --short "$base"): $n files (stage fingerprints masked)"
fi
exit $status
