#!/usr/bin/env python3
"""Writes golden/tune/set: a small BEIR-format set where the title decides relevance (issue #24's
planted fault). Each document's title names its topic; its body is filler that mentions the words
of three *other* topics, so a ranking that ignores titles (lex.title near 0) is led astray by the
bodies. Deterministic (seeded); run it again to regenerate: python3 golden/tune/make_set.py"""
import json, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "set")
rng = random.Random(24)
TOPICS = [
    "raft leader election timeout", "postgres vacuum bloat", "kafka consumer lag",
    "tantivy segment merge", "tokio runtime starvation", "nginx upstream keepalive",
    "redis eviction policy", "grpc deadline propagation", "terraform state lock",
    "kubernetes pod eviction", "sqlite wal checkpoint", "rust borrow checker lifetimes",
    "python asyncio cancellation", "git rebase conflicts", "docker layer caching",
    "bloom filter false positives", "jwt token refresh", "oauth pkce flow",
    "s3 multipart upload", "dns negative caching", "tcp slow start",
    "utf8 surrogate pairs", "cron daylight saving", "csv quoting rules",
    "regex catastrophic backtracking", "memory mapped files", "zstd dictionary training",
    "webassembly linear memory", "llvm inlining heuristics", "bm25 length normalization",
]
FILLER = ["notes", "about", "the", "system", "we", "saw", "during", "the", "week", "and",
          "then", "looked", "at", "logs", "again", "before", "lunch", "with", "the", "team"]

def body(i):
    others = rng.sample([t for j, t in enumerate(TOPICS) if j != i], 3)
    words = []
    for t in others:
        words += t.split() * 2
    words += rng.choices(FILLER, k=30)
    rng.shuffle(words)
    return " ".join(words)

os.makedirs(os.path.join(OUT, "qrels"), exist_ok=True)
with open(os.path.join(OUT, "corpus.jsonl"), "w") as f:
    for i, t in enumerate(TOPICS):
        for v in range(2):
            f.write(json.dumps({"_id": f"d{i}-{v}", "title": t.capitalize() + (" notes" if v else ""),
                                "text": body(i)}) + "\n")
with open(os.path.join(OUT, "queries.jsonl"), "w") as q, \
     open(os.path.join(OUT, "qrels", "train.tsv"), "w") as tr, \
     open(os.path.join(OUT, "qrels", "test.tsv"), "w") as te:
    tr.write("query-id\tcorpus-id\tscore\n")
    te.write("query-id\tcorpus-id\tscore\n")
    for i, t in enumerate(TOPICS):
        words = t.split()
        for k in range(2):
            qid = f"q{i}-{k}"
            text = " ".join(rng.sample(words, len(words))) if k else t
            q.write(json.dumps({"_id": qid, "text": text}) + "\n")
            out = te if (i % 5 == 0 and k == 1) else tr
            out.write(f"{qid}\td{i}-0\t2\n{qid}\td{i}-1\t1\n")
