#!/usr/bin/env python3
"""Session Recall@5 and hit@5 over every conversation's `brain eval --per-query --json` report.

    score.py TAG DIR      # DIR: one report per conversation

Recall@5: the share of a question's evidence sessions in its top 5; hit@5: whether one of them is
there. Both as `brain eval` averages them per set, weighted here by each set's questions: over all
questions, then per category. Then evidence in context at each budget the reports carry: the share
of questions whose every evidence turn is inside the block `brain context` assembles.
"""
import glob
import json
import os
import sys


def main():
    tag, folder = sys.argv[1], sys.argv[2]
    queries, recall, hit, classes, evidence = 0, 0.0, 0.0, {}, {}
    for f in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(f) as fh:
            d = json.load(fh)
        queries += d["queries"]
        recall += d["recall_at_5"] * d["queries"]
        hit += d["hit_at_5"] * d["queries"]
        for e in d.get("evidence", []):
            a = evidence.setdefault(e["budget"], [0, 0.0])
            a[0] += e["questions"]
            a[1] += e["in_context"] * e["questions"]
        for c, v in d["classes"].items():
            a = classes.setdefault(c, [0.0, 0, 0.0])
            a[0] += v["recall_at_5"] * v["queries"]
            a[1] += v["queries"]
            a[2] += v["hit_at_5"] * v["queries"]
    if not queries:
        sys.exit(f"score.py: no reports in {folder}")
    print(f"{tag:28} {queries} questions  Recall@5 {recall / queries:.4f}  hit@5 {hit / queries:.4f}")
    for c, (r, n, h) in sorted(classes.items()):
        print(f"  {c:14} {n:4} questions  Recall@5 {r / n:.4f}  hit@5 {h / n:.4f}")
    for b, (n, s) in sorted(evidence.items()):
        print(f"  evidence in context at {b} tokens: {s / max(n, 1):.4f} of {n} questions")


if __name__ == "__main__":
    main()
