#!/usr/bin/env python3
"""A tiny random-weight cross-encoder and its float64 reference scores, for reranker parity.

Writes, under tests/fixtures/:
  rerank-tiny/config.json, rerank-tiny/tokenizer.json, rerank-tiny/model.safetensors
      a BertForSequenceClassification checkpoint (2 layers, hidden 32, 4 heads, 1 label) with seeded
      random weights, in the Hugging Face layout (bert.* weights, bert.pooler.dense, classifier);
  rerank_reference.json
      for several (query, passage) pairs: the token ids and segment ids, and the logit of an
      independent float64 numpy forward pass.

tests/tests/rerank.rs loads the folder with brain's CrossEncoder and requires the same ids and logits
within 1e-4. The Rust test needs no Python; regenerate with:

    pip install numpy && python3 tests/rerank_reference.py

Everything is written out here: the safetensors container (8-byte header length, JSON header, raw
little-endian data), WordPiece tokenization (lower-case, split on whitespace and punctuation, greedy
longest-match with ## continuations), and the BERT forward pass (embeddings + LayerNorm, post-LN
self-attention layers with an erf-GELU MLP, tanh pooler on [CLS], linear classifier).
"""
import json
import math
import os
import struct
import sys
import unicodedata

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
DIR = os.path.join(ROOT, "rerank-tiny")

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = """the a of to in and is for on with how does do why what when where which
lock contention index indexing writer reader token tokens jwt rejected refresh session cache
migration failed fail error import unresolved build test cargo rust tantivy query search vector
embedding model rerank score file path config yaml merge segment commit delete memory disk fast slow
""".split()
PIECES = ["##ing", "##ed", "##s", "##er", "##ion"]
VOCAB = SPECIAL + WORDS + PIECES + list(".,:;!?()-_/'\"")
IDX = {t: i for i, t in enumerate(VOCAB)}

CFG = {
    "architectures": ["BertForSequenceClassification"],
    "model_type": "bert",
    "vocab_size": len(VOCAB),
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 64,
    "hidden_act": "gelu",
    "max_position_embeddings": 64,
    "type_vocab_size": 2,
    "layer_norm_eps": 1e-12,
    "num_labels": 1,
    "id2label": {"0": "LABEL_0"},
    "label2id": {"LABEL_0": 0},
    "pad_token_id": 0,
}

PAIRS = [
    ("why does the index writer fail", "the writers failed to commit: lock contention on the indexes"),
    ("why does the index writer fail", "a cache migration for the session tokens"),
    ("jwt token rejected after refresh", "the jwt was rejected when the session token refreshed."),
    ("rust build error", "cargo build failed with error: unresolved import tantivy"),
    ("vector search", "embedding model scores; the rerank model scores query and file path"),
    ("how fast is indexing", "indexing " * 80 + "is fast on disk"),  # long: truncated at 64 tokens
    ("Unknown Wörds here", "zzz qqq unresolved"),  # [UNK] and accents
]
MAX_TOKENS = 64


# --- tokenization -------------------------------------------------------------------------------------

def is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def basic(text):
    text = text.lower()
    out, cur = [], ""
    for ch in text:
        if ch.isspace():
            if cur:
                out.append(cur)
            cur = ""
        elif is_punct(ch):
            if cur:
                out.append(cur)
            out.append(ch)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def wordpiece(word):
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in IDX:
                found = sub
                break
            end -= 1
        if found is None:
            return ["[UNK]"]
        pieces.append(found)
        start = end
    return pieces


def encode_pair(q, p):
    a = [IDX[t] for w in basic(q) for t in wordpiece(w)]
    b = [IDX[t] for w in basic(p) for t in wordpiece(w)]
    # LongestFirst truncation to MAX_TOKENS including [CLS] [SEP] [SEP].
    while len(a) + len(b) + 3 > MAX_TOKENS:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    ids = [IDX["[CLS]"]] + a + [IDX["[SEP]"]] + b + [IDX["[SEP]"]]
    types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
    return ids, types


# --- weights -------------------------------------------------------------------------------------------

def make_weights(seed=7):
    rng = np.random.default_rng(seed)
    h, i, v = CFG["hidden_size"], CFG["intermediate_size"], CFG["vocab_size"]
    w = {}

    def dense(name, out, inp):
        w[name + ".weight"] = rng.normal(0, 0.3, (out, inp))
        w[name + ".bias"] = rng.normal(0, 0.05, (out,))

    def ln(name):
        w[name + ".weight"] = 1.0 + rng.normal(0, 0.1, (h,))
        w[name + ".bias"] = rng.normal(0, 0.1, (h,))

    w["bert.embeddings.word_embeddings.weight"] = rng.normal(0, 0.5, (v, h))
    w["bert.embeddings.position_embeddings.weight"] = rng.normal(0, 0.2, (CFG["max_position_embeddings"], h))
    w["bert.embeddings.token_type_embeddings.weight"] = rng.normal(0, 0.2, (2, h))
    ln("bert.embeddings.LayerNorm")
    for l in range(CFG["num_hidden_layers"]):
        p = f"bert.encoder.layer.{l}"
        for part in ("query", "key", "value"):
            dense(f"{p}.attention.self.{part}", h, h)
        dense(f"{p}.attention.output.dense", h, h)
        ln(f"{p}.attention.output.LayerNorm")
        dense(f"{p}.intermediate.dense", i, h)
        dense(f"{p}.output.dense", h, i)
        ln(f"{p}.output.LayerNorm")
    dense("bert.pooler.dense", h, h)
    dense("classifier", 1, h)
    return {k: v.astype(np.float32) for k, v in w.items()}


def save_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)


def tokenizer_json():
    special = [{"id": IDX[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True} for t in SPECIAL]
    tok = lambda t, type_id: {"SpecialToken": {"id": t, "type_id": type_id}}
    seq = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": special,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": False, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0)],
            "pair": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0), seq("B", 1), tok("[SEP]", 1)],
            "special_tokens": {t: {"id": t, "ids": [IDX[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": IDX},
    }


# --- forward pass (float64) ----------------------------------------------------------------------------

def layer_norm(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def logit(w, ids, types):
    g = lambda k: w[k].astype(np.float64)
    n = len(ids)
    x = g("bert.embeddings.word_embeddings.weight")[ids] + g("bert.embeddings.position_embeddings.weight")[:n]
    x = x + g("bert.embeddings.token_type_embeddings.weight")[types]
    x = layer_norm(x, g("bert.embeddings.LayerNorm.weight"), g("bert.embeddings.LayerNorm.bias"))
    heads = CFG["num_attention_heads"]
    hd = CFG["hidden_size"] // heads
    for l in range(CFG["num_hidden_layers"]):
        p = f"bert.encoder.layer.{l}"
        lin = lambda name, y: y @ g(name + ".weight").T + g(name + ".bias")
        q = lin(f"{p}.attention.self.query", x).reshape(n, heads, hd).transpose(1, 0, 2)
        k = lin(f"{p}.attention.self.key", x).reshape(n, heads, hd).transpose(1, 0, 2)
        v = lin(f"{p}.attention.self.value", x).reshape(n, heads, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, CFG["hidden_size"])
        x = layer_norm(lin(f"{p}.attention.output.dense", ctx) + x,
                       g(f"{p}.attention.output.LayerNorm.weight"), g(f"{p}.attention.output.LayerNorm.bias"))
        up = gelu(lin(f"{p}.intermediate.dense", x))
        x = layer_norm(lin(f"{p}.output.dense", up) + x,
                       g(f"{p}.output.LayerNorm.weight"), g(f"{p}.output.LayerNorm.bias"))
    pooled = np.tanh(x[0] @ g("bert.pooler.dense.weight").T + g("bert.pooler.dense.bias"))
    return float((pooled @ g("classifier.weight").T + g("classifier.bias"))[0])


def main():
    os.makedirs(DIR, exist_ok=True)
    w = make_weights()
    save_safetensors(os.path.join(DIR, "model.safetensors"), w)
    with open(os.path.join(DIR, "config.json"), "w") as f:
        json.dump(CFG, f, indent=2)
        f.write("\n")
    with open(os.path.join(DIR, "tokenizer.json"), "w") as f:
        json.dump(tokenizer_json(), f, indent=1)
        f.write("\n")
    cases = []
    for q, p in PAIRS:
        ids, types = encode_pair(q, p)
        cases.append({"query": q, "passage": p, "ids": ids, "types": types, "logit": logit(w, ids, types)})
    with open(os.path.join(ROOT, "rerank_reference.json"), "w") as f:
        json.dump({"max_tokens": MAX_TOKENS, "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {DIR} and rerank_reference.json ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
