#!/usr/bin/python3
"""XGBoost's LambdaMART on the bench/ltr folds, single-threaded: the
comparison of docs/ltr.md ("LambdaMART against XGBoost").

usage: /usr/bin/python3 bench/ltr/xgb.py DIR
  (DIR from `go run ./bench/ltr -write DIR`; needs Debian's python3-xgboost
  and python3-sklearn)

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


def load(path):
    x, y, qid = load_svmlight_file(path, query_id=True, n_features=34)
    docids = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.lstrip().startswith("#"):
                docids.append(line.rsplit("#", 1)[1].split()[-1] if "#" in line else "")
    x = x[:, :33]  # LOVBenchFull: features 1-33
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
    d = sys.argv[1]
    params = {"objective": "rank:ndcg", "tree_method": "hist", "nthread": 1, "eta": 0.1,
              "grow_policy": "lossguide", "max_leaves": 10, "max_depth": 0, "eval_metric": "ndcg@10"}
    c0 = time.process_time()
    vals = []
    for k in range(1, 6):
        fd = os.path.join(d, "Fold%d" % k)
        xt, yt, _, gt, _ = load(os.path.join(fd, "train.txt"))
        xv, yv, _, gv, _ = load(os.path.join(fd, "vali.txt"))
        xs, ys, _, gs, ds = load(os.path.join(fd, "test.txt"))
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
    print("XGBoost %s hist, 1 thread: NDCG@10 %.4f, CPU %.1f s" % (xgb.__version__, sum(vals) / 5, time.process_time() - c0))


if __name__ == "__main__":
    main()
