#!/usr/bin/python3
"""XGBoost's LambdaMART on the bench/ltr folds, single-threaded: the
comparison of docs/ltr.md ("LambdaMART against XGBoost").

usage: /usr/bin/python3 bench/ltr/xgb.py [--zscore] DIR
  (DIR from `go run ./bench/ltr -write DIR`; needs Debian's python3-xgboost
  and python3-sklearn)

XGBoost reads the feature values as they are. With --zscore every feature
is first normalised per query as lovbench's and RankLib's `zscore` do
((x - mean) / sample standard deviation; a feature whose values within the
query are all equal keeps them), to show what that normalisation does to
a tree ranker; bench/ltr/vs_xgboost.sh runs both.

Per fold: objective rank:ndcg, tree_method hist, nthread 1, eta 0.1,
10 leaves per tree (grow_policy lossguide), at most 1000 trees, early
stopping after 100 trees without a gain in validation NDCG@10 and the
ensemble cut at the best tree (lovbench's and RankLib's defaults), on the
LOVBenchFull features 1-33. Prints the test NDCG@10 (gain 2^l - 1, log2
discount, ties by docid descending as trec_eval; a query without a relevant
document scores 0) per fold and its mean, and the process CPU time.
"""
import os
import sys
import time

import numpy as np
import xgboost as xgb
from sklearn.datasets import load_svmlight_file


def zscore(x, qid):
    """Per-query z-score of a dense matrix, RankLib's ZScoreNormalizor:
    sample standard deviation; a column constant within the query keeps
    its values."""
    x = x.copy()
    start = 0
    while start < len(qid):
        end = start
        while end < len(qid) and qid[end] == qid[start]:
            end += 1
        block = x[start:end]
        n = end - start
        if n > 1:
            for j in range(block.shape[1]):
                col = block[:, j]
                if np.all(col == col[0]):
                    continue
                sd = np.sqrt(((col - col.mean()) ** 2).sum() / (n - 1))
                block[:, j] = (col - col.mean()) / sd
        start = end
    return x


def load(path, norm=False):
    x, y, qid = load_svmlight_file(path, query_id=True, n_features=34)
    docids = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.lstrip().startswith("#"):
                docids.append(line.rsplit("#", 1)[1].split()[-1] if "#" in line else "")
    x = x[:, :33]  # LOVBenchFull: features 1-33
    if norm:
        x = zscore(x.toarray(), qid)
    _, counts = np.unique(qid, return_counts=True)
    # group sizes in file order (queries are contiguous)
    groups, start = [], 0
    while start < len(qid):
        end = start
        while end < len(qid) and qid[end] == qid[start]:
            end += 1
        groups.append(end - start)
        start = end
    return x, y, qid, groups, docids


def ndcg10(y, scores, groups, docids):
    total, start = 0.0, 0
    for g in groups:
        ys, ss, ds = y[start:start + g], scores[start:start + g], docids[start:start + g]
        start += g
        order = sorted(range(g), key=lambda i: ds[i], reverse=True)
        order = sorted(order, key=lambda i: -ss[i])  # stable: docid descending on ties
        gains = [2.0 ** ys[i] - 1 for i in order[:10]]
        dcg = sum(v / np.log2(r + 2) for r, v in enumerate(gains))
        ideal = sorted((2.0 ** v - 1 for v in ys), reverse=True)[:10]
        idcg = sum(v / np.log2(r + 2) for r, v in enumerate(ideal))
        total += dcg / idcg if idcg > 0 else 0.0
    return total / len(groups)


def main():
    args = sys.argv[1:]
    norm = "--zscore" in args
    args = [a for a in args if a != "--zscore"]
    if len(args) != 1:
        sys.exit("usage: xgb.py [--zscore] DIR")
    d = args[0]
    params = {"objective": "rank:ndcg", "tree_method": "hist", "nthread": 1, "eta": 0.1,
              "grow_policy": "lossguide", "max_leaves": 10, "max_depth": 0, "eval_metric": "ndcg@10"}
    c0 = time.process_time()
    vals = []
    for k in range(1, 6):
        fd = os.path.join(d, "Fold%d" % k)
        xt, yt, _, gt, _ = load(os.path.join(fd, "train.txt"), norm)
        xv, yv, _, gv, _ = load(os.path.join(fd, "vali.txt"), norm)
        xs, ys, _, gs, ds = load(os.path.join(fd, "test.txt"), norm)
        dt = xgb.DMatrix(xt, label=yt)
        dt.set_group(gt)
        dv = xgb.DMatrix(xv, label=yv)
        dv.set_group(gv)
        bst = xgb.train(params, dt, num_boost_round=1000, evals=[(dv, "vali")],
                        early_stopping_rounds=100, verbose_eval=False)
        p = bst.predict(xgb.DMatrix(xs), iteration_range=(0, bst.best_iteration + 1))
        v = ndcg10(ys, p, gs, ds)
        vals.append(v)
        print("Fold%d trees %d NDCG@10 %.4f" % (k, bst.best_iteration + 1, v), flush=True)
    print("XGBoost %s hist, 1 thread, %s: NDCG@10 %.4f, CPU %.1f s" % (
        xgb.__version__, "zscore" if norm else "raw features", sum(vals) / 5, time.process_time() - c0))


if __name__ == "__main__":
    main()
