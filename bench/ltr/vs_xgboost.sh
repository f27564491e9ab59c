#!/usr/bin/env bash
# LambdaMART against XGBoost, back to back on the same folds
# (docs/ltr.md, "LambdaMART against XGBoost").
#
# usage: bash bench/ltr/vs_xgboost.sh [DIR]
#
# Writes the bench/ltr folds (7,400 synthetic queries, 5 folds) to DIR
# (default: a temporary directory) unless DIR/Fold1 exists, then runs, one
# after the other and each single-threaded as a whole process under
# /usr/bin/time:
#   1. lovbench ltr --algorithms lambdamart --configs full --norm none
#      --workers 1 (features 1-33 as they are in the files);
#   2. bench/ltr/xgb.py: XGBoost's rank:ndcg, tree_method hist, 1 thread,
#      with the same settings (10 leaves, eta 0.1, at most 1000 trees, early
#      stopping after 100 on validation NDCG@10) on the same values.
# Both programs read the fold files and compute the test NDCG@10 the same
# way (ties by docid descending, as trec_eval). It prints the CPU seconds
# (user+sys) of each process, the ratio and both NDCG@10. Needs Debian's
# python3-xgboost and python3-sklearn.
#
# Both see the raw feature values: XGBoost does not normalise, and
# lovbench's per-query zscore (the default of lovbench ltr, as LOVBench ran
# RankLib) changes what a tree can split on. To see that effect, run
# `lovbench ltr ... --norm zscore` and `bench/ltr/xgb.py --zscore DIR`.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-}
if [[ -z "$dir" ]]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
py=/usr/bin/python3
if ! "$py" -c 'import xgboost, sklearn' 2>/dev/null; then
  echo "vs_xgboost: $py cannot import xgboost and sklearn (apt-get install python3-xgboost python3-sklearn)" >&2
  exit 1
fi
bin=$(mktemp -d)/lovbench
go build -o "$bin" ./cmd/lovbench
[[ -d "$dir/Fold1" ]] || go run ./bench/ltr -write "$dir"
out=$(mktemp -d)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f '%U %S %e %M' -o "$out/lov.time" "$bin" ltr -q --data "$dir" --algorithms lambdamart \
  --configs full --norm none --workers 1 --no-models --out "$out/ltr"
lov_ndcg=$("$py" - "$out/ltr/results.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
print(next("%.4f" % r["values"]["NDCG@10"] for r in d["rows"] if r["fold"] == "MEAN" and r["configuration"] != "Baseline"))
P
)
echo "load average between: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f '%U %S %e %M' -o "$out/xgb.time" "$py" bench/ltr/xgb.py "$dir" | tee "$out/xgb.txt" >&2
xgb_ndcg=$(sed -n 's/.*NDCG@10 \([0-9.]*\), CPU.*/\1/p' "$out/xgb.txt")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r lu ls lw lm <"$out/lov.time"
read -r xu xs xw xm <"$(echo "$out/xgb.time")"
"$py" - "$lu" "$ls" "$lw" "$lm" "$lov_ndcg" "$xu" "$xs" "$xw" "$xm" "$xgb_ndcg" <<'P'
import sys
lu, ls, lw, lm, ln, xu, xs, xw, xm, xn = sys.argv[1:]
lc, xc = float(lu) + float(ls), float(xu) + float(xs)
print("%-36s %10s %10s %10s %8s" % ("process (1 thread, 5 folds)", "CPU s", "wall s", "max RSS", "NDCG@10"))
print("%-36s %10.1f %10.1f %7.0f MB %8s" % ("lovbench ltr, LambdaMART", lc, float(lw), float(lm) / 1024, ln))
print("%-36s %10.1f %10.1f %7.0f MB %8s" % ("XGBoost hist (bench/ltr/xgb.py)", xc, float(xw), float(xm) / 1024, xn))
print("lovbench is %.2fx faster by CPU time; NDCG@10 %+.4f" % (xc / lc, float(ln) - float(xn)))
P
