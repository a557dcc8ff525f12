#!/usr/bin/env python3
"""LoCoMo (Maharana et al., ACL 2024) as BEIR-format session-retrieval sets for `brain eval`.

    corpus.py LOCOMO_JSON_OR_DIR OUT [--split]

Each session of a conversation becomes one document: its turns as "Speaker: text" paragraphs (a
shared photo as its caption), its date as the document's date. Each question becomes a query whose
relevant documents are the sessions its evidence turns are in (D3:5 → session 3), and the text of
those turns, as the document writes them, is its `metadata.evidence` (what `brain eval` looks for
in the context block: evidence in context); its class is LoCoMo's category (1 multi-hop, 2
temporal, 3 open-domain, 4 single-hop, 5 adversarial). Questions without evidence are left out.

Without --split, OUT holds one set of every conversation (sessions of other conversations are
distractors); with --split, OUT/<conversation>/ holds one set per conversation, as memory systems
are usually measured on LoCoMo (each conversation its own memory).
"""
import datetime
import json
import os
import re
import sys

CLASSES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
SESSION = re.compile(r"^session_(\d+)$")
EVIDENCE = re.compile(r"D(\d+)\s*:")
TURN = re.compile(r"D(\d+)\s*:\s*(\d+)")


def conversations(src):
    """(name, conversation) for a locomo10.json file or a folder of per-conversation files."""
    if os.path.isdir(src):
        for f in sorted(os.listdir(src)):
            if f.endswith(".json"):
                with open(os.path.join(src, f)) as fh:
                    yield f[: -len(".json")], json.load(fh)
        return
    with open(src) as fh:
        data = json.load(fh)
    for i, item in enumerate(data):
        conv = dict(item["conversation"])
        conv["qa"] = item.get("qa", [])
        yield str(item.get("sample_id", i)), conv


def when(text):
    """'1:56 pm on 8 May, 2023' → RFC 3339 (UTC), else None."""
    try:
        t = datetime.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except (ValueError, AttributeError):
        return None
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def turn(t):
    line = f"{t.get('speaker', '?')}: {t.get('text', '')}"
    if t.get("blip_caption"):
        line += f" [shares {t['blip_caption']}]"
    return line


def turns_by_id(conv):
    """'D3:5' → the turn's text as its session's document writes it."""
    out = {}
    for key, turns in conv.items():
        if SESSION.match(key) and isinstance(turns, list):
            for t in turns:
                if isinstance(t, dict) and t.get("dia_id"):
                    m = TURN.match(str(t["dia_id"]))
                    if m:
                        out[(int(m.group(1)), int(m.group(2)))] = turn(t)
    return out


def sessions(name, conv):
    a, b = conv.get("speaker_a", "A"), conv.get("speaker_b", "B")
    for key, turns in conv.items():
        m = SESSION.match(key)
        if not m or not isinstance(turns, list) or not turns:
            continue
        n = int(m.group(1))
        stamp = conv.get(f"session_{n}_date_time", "")
        doc = {
            "_id": f"{name}-s{n}",
            "title": f"{a} and {b}, {stamp}".strip(", "),
            "text": "\n\n".join(turn(t) for t in turns),
            "metadata": {"date": when(stamp)} if when(stamp) else {},
        }
        yield n, doc


def questions(name, conv, have):
    said = turns_by_id(conv)
    for i, q in enumerate(conv.get("qa", [])):
        rel = sorted({int(s) for e in q.get("evidence", []) for s in EVIDENCE.findall(str(e))} & have)
        if not rel:
            continue
        cls = CLASSES.get(q.get("category"), "other")
        keys = sorted({(int(d), int(t)) for e in q.get("evidence", []) for d, t in TURN.findall(str(e))})
        evidence = [said[k] for k in keys if k in said]
        meta = {"class": cls}
        if evidence:
            meta["evidence"] = evidence
        yield {"_id": f"{name}-q{i}", "text": q["question"], "metadata": meta}, [
            f"{name}-s{n}" for n in rel
        ]


def write(out, items):
    os.makedirs(os.path.join(out, "qrels"), exist_ok=True)
    with open(os.path.join(out, "corpus.jsonl"), "w") as c, open(
        os.path.join(out, "queries.jsonl"), "w"
    ) as q, open(os.path.join(out, "qrels", "test.tsv"), "w") as r:
        r.write("query-id\tcorpus-id\tscore\n")
        for name, conv in items:
            docs = dict(sessions(name, conv))
            for doc in docs.values():
                c.write(json.dumps(doc) + "\n")
            for query, rel in questions(name, conv, set(docs)):
                q.write(json.dumps(query) + "\n")
                for d in rel:
                    r.write(f"{query['_id']}\t{d}\t1\n")


def main():
    args = [a for a in sys.argv[1:] if a != "--split"]
    if len(args) != 2:
        sys.exit(__doc__)
    src, out = args
    if "--split" in sys.argv:
        for name, conv in conversations(src):
            write(os.path.join(out, name), [(name, conv)])
    else:
        write(out, conversations(src))


if __name__ == "__main__":
    main()
