#!/usr/bin/env bash
# Measures, side by side in one run, the CPU (user+sys of /usr/bin/time -v)
# of lovbench-beam against lovbench on one machine doing the same job
# (docs/scale.md, "Apache Beam"): from a plain Yandex log,
#   fit --log:   lovbench fit --log LOG --workers 1   vs   lovbench-beam fit --log LOG
#   in steps:    lovbench ingest + shard + fit --shards --workers 1
#                vs lovbench-beam shard + fit --shard-dir
# Prints one line per command and the load average; compare CPU seconds,
# not wall time, on a shared machine.
#
# usage: bench/scale/beamcpu.sh LOG WORKDIR [LOVBENCH LOVBENCH_BEAM]
#   LOG e.g. from: lovbench simulate --model ubm --sessions 1000000 --queries 50000 --seed 17 --out sim.tsv
# Without binaries, builds both from this checkout into WORKDIR.
set -euo pipefail
log=$1 d=$2
mkdir -p "$d"
lb=${3:-} lbb=${4:-}
if [ -z "$lb" ]; then
	root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
	(cd "$root" && go build -o "$d/lovbench" ./cmd/lovbench)
	(cd "$root/beam" && go build -o "$d/lovbench-beam" ./cmd/lovbench-beam)
	lb=$d/lovbench lbb=$d/lovbench-beam
fi
t() {
	local name=$1
	shift
	rm -rf "${d:?}/$name"
	/usr/bin/time -v "$@" >"$d/$name.out" 2>"$d/$name.err"
	awk -v n="$name" '/User time/{u=$NF} /System time/{s=$NF} /Elapsed/{w=$NF} /Maximum resident/{r=$NF}
		END{printf "%-26s %7.2f CPU-s (user %.2f + sys %.2f)  wall %s  peak %.0f MiB\n", n, u+s, u, s, w, r/1024}' "$d/$name.err"
}
t fit-log "$lb" -q fit --log "$log" --workers 1 --out "$d/fit-log"
t beam-fit-log "$lbb" fit --log "$log" --out "$d/beam-fit-log"
t ingest "$lb" -q ingest --format yandex --log "$log" --out "$d/ingest"
t shard "$lb" -q shard --sessions "$d/ingest" --shards 16 --out "$d/shard"
t fit-shards "$lb" -q fit --shards "$d/shard" --workers 1 --out "$d/fit-shards"
t beam-shard "$lbb" shard --log "$log" --out "$d/beam-shard"
t beam-fit-shard-dir "$lbb" fit --shard-dir "$d/beam-shard" --out "$d/beam-fit-shard-dir"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
