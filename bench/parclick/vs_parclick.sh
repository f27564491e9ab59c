#!/usr/bin/env bash
# lovbench fit against ParClick, one after the other on the same click log
# and click models (docs/benchmarks.md, "lovbench against ParClick").
#
# usage: bash bench/parclick/vs_parclick.sh -p PARCLICK -l LOG [options]
#
#   -p PARCLICK   ParClick's binary (see bench/parclick/README.md to build it)
#   -l LOG        click log in the Yandex relevance-prediction format, as
#                 lovbench simulate writes it (plain or gzip)
#   -m MODELS     comma-separated, among pbm, ccm, dbn, ubm (default ubm,dbn)
#   -i N          EM iterations of both programs (default 50)
#   -t THREADS    comma-separated ParClick thread counts (default 1; 0: run
#                 lovbench only, e.g. to compare builds)
#   -b LOVBENCH   a lovbench binary; repeat -b to compare builds, which then
#                 run alternately (default: built from this checkout)
#   -r ROUNDS     runs of each lovbench binary (default 1)
#   -s            also fit each model in its own lovbench process
#   -a ARGS       extra arguments for lovbench fit (e.g. "--workers 1")
#   -w DIR        work directory (default: a temporary one, removed at exit)
#
# Converts LOG with to_parclick.awk into WORK/log.parclick (dense integer
# IDs, one sentinel SERP at the end, see the awk file), then runs, each as a
# whole process under /usr/bin/time -v:
#   1. lovbench fit --log LOG --models MODELS --iterations N
#      --train-fraction 0.8 --json (all models in one process, as a user
#      would; with -s also one process per model);
#   2. ParClick --model-type M --n-threads T --itr N --max-sessions -1 on
#      the converted log, once per model (ParClick fits one model per run).
# Both split as ParClick does: the first 80% of SERPs in file order train,
# the test SERPs keep only queries seen in training. It prints CPU seconds
# (user+sys), wall seconds, peak RSS (MiB) and each model's test
# log-likelihood. ParClick prints its log-likelihood with 6 digits unless
# built with the one-line precision change of the README.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage() { sed -n '5,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

parclick= log= models=ubm,dbn iters=50 threads=1 rounds=1 separate=0 lbargs= work=
lovbenches=()
while getopts "p:l:m:i:t:b:r:sa:w:h" opt; do
  case $opt in
    p) parclick=$OPTARG ;;
    l) log=$OPTARG ;;
    m) models=$OPTARG ;;
    i) iters=$OPTARG ;;
    t) threads=$OPTARG ;;
    b) lovbenches+=("$OPTARG") ;;
    r) rounds=$OPTARG ;;
    s) separate=1 ;;
    a) lbargs=$OPTARG ;;
    w) work=$OPTARG ;;
    *) usage ;;
  esac
done
if [[ -z "$parclick" ]]; then
  echo "vs_parclick: no ParClick binary: pass -p PATH (bench/parclick/README.md says how to build it)" >&2
  exit 2
fi
if [[ ! -x "$parclick" ]]; then
  echo "vs_parclick: ParClick binary $parclick is not an executable file" >&2
  exit 2
fi
[[ -n "$log" ]] || { echo "vs_parclick: no click log: pass -l LOG" >&2; exit 2; }
[[ -r "$log" ]] || { echo "vs_parclick: cannot read $log" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "vs_parclick: needs GNU time as /usr/bin/time (apt-get install time)" >&2; exit 2; }

declare -A mtype=([pbm]=0 [ccm]=1 [dbn]=2 [ubm]=3)
IFS=, read -r -a mlist <<<"$models"
for m in "${mlist[@]}"; do
  [[ -n "${mtype[$m]:-}" ]] || { echo "vs_parclick: ParClick has no model $m (pbm, ccm, dbn, ubm)" >&2; exit 2; }
done
IFS=, read -r -a tlist <<<"$threads"

if [[ -z "$work" ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
if [[ ${#lovbenches[@]} -eq 0 ]]; then
  (cd "$root" && go build -o "$work/lovbench" ./cmd/lovbench)
  lovbenches=("$work/lovbench")
fi

# time_fields FILE: "cpu wall rss_mib" from /usr/bin/time -v output.
time_fields() {
  awk -F': ' '
    /User time \(seconds\)/ { u = $2 }
    /System time \(seconds\)/ { s = $2 }
    /Elapsed \(wall clock\) time/ {
      n = split($2, p, ":"); w = 0
      for (i = 1; i <= n; i++) w = w * 60 + p[i]
    }
    /Maximum resident set size \(kbytes\)/ { r = $2 }
    END { printf "%.2f %.2f %.0f\n", u + s, w, r / 1024 }' "$1"
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# log $log, models $models, $iters iterations, train share 0.8"
if [[ " ${tlist[*]} " =~ \ [1-9][0-9]*\  ]]; then
  t0=$(date +%s.%N)
  zcat -f -- "$log" | awk -f "$here/to_parclick.awk" >"$work/log.parclick"
  printf '# converted for ParClick in %.1f s\n' "$(echo "$(date +%s.%N) - $t0" | bc)"
fi
printf '%-40s %-10s %9s %9s %9s  %s\n' program models cpu_s wall_s rss_mib test_loglikelihood

run_lovbench() { # BIN LABEL MODELS
  local bin=$1 label=$2 ms=$3 out="$work/lb.out" ll
  rm -rf "$out"
  # shellcheck disable=SC2086
  /usr/bin/time -v -o "$work/time.txt" "$bin" fit -q --log "$log" --models "$ms" \
    --iterations "$iters" --train-fraction 0.8 --out "$out" --json $lbargs >"$work/lb.json"
  ll=$(jq -r '[.[] | "\(.model)=\(.test_loglikelihood)"] | join(" ")' "$work/lb.json")
  read -r cpu wall rss < <(time_fields "$work/time.txt")
  printf '%-40s %-10s %9s %9s %9s  %s\n' "$label" "$ms" "$cpu" "$wall" "$rss" "$ll"
}

for ((r = 1; r <= rounds; r++)); do
  for i in "${!lovbenches[@]}"; do
    bin=${lovbenches[$i]}
    run_lovbench "$bin" "lovbench[$i] $(basename "$bin")" "$models"
    if [[ $separate -eq 1 && ${#mlist[@]} -gt 1 ]]; then
      for m in "${mlist[@]}"; do run_lovbench "$bin" "lovbench[$i] $(basename "$bin")" "$m"; done
    fi
  done
done

for t in "${tlist[@]}"; do
  [[ $t -gt 0 ]] || continue
  for m in "${mlist[@]}"; do
    /usr/bin/time -v -o "$work/time.txt" "$parclick" --raw-path "$work/log.parclick" \
      --model-type "${mtype[$m]}" --n-threads "$t" --itr "$iters" --max-sessions -1 >"$work/pc.txt"
    ll=$(sed -n 's/^Total Log likelihood is: //p' "$work/pc.txt")
    [[ -n "$ll" ]] || { echo "vs_parclick: ParClick printed no log-likelihood (see $work/pc.txt)" >&2; exit 1; }
    read -r cpu wall rss < <(time_fields "$work/time.txt")
    printf '%-40s %-10s %9s %9s %9s  %s\n' "ParClick ${t} thread(s)" "$m" "$cpu" "$wall" "$rss" "${m^^}=$ll"
  done
done
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
