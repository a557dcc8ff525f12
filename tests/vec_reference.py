#!/usr/bin/env python3
"""Independent reference embeddings for all-MiniLM-L6-v2: a float64 numpy forward pass.

Writes tests/fixtures/vec_reference.json, which tests/tests/vec.rs compares the Rust (candle) embedder
against (cosine >= 0.9999). The Rust test needs no Python; this script is only for regenerating the
fixture:

    python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install numpy safetensors tokenizers
    /tmp/refenv/bin/python tests/vec_reference.py target/models/all-MiniLM-L6-v2 > tests/fixtures/vec_reference.json

Everything but tokenization is written out here (BERT encoder per Devlin et al. 2019 / HF BertModel:
embeddings + LayerNorm, 6 post-LN layers of 12-head self-attention and an erf-GELU MLP; then
sentence-transformers mean pooling over real tokens and L2 normalization), in float64, so it shares no
numerics with candle. Tokenization uses the model's tokenizer.json with padding off and truncation at 512
(the file itself pads and truncates at 128: the trap the Rust side also fixes).
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

TEXTS = [
    "This is an example sentence",
    "Each sentence is converted",
    "JWT token rejected: signature verification failed for the session cookie",
    "authorization failures",
    "```rust\nfn main() { println!(\"hello\"); }\n```",
    "Notes on BM25: k1 = 1.2 and b = 0.75 are the usual defaults; the lexical index keeps whole "
    "identifiers such as snake_case_names and camelCaseNames in a field of their own.",
    "Café naïve résumé — unicode, accents and dashes",
    " ".join(["The quick brown fox jumps over the lazy dog."] * 30),  # ~300 tokens: beyond the 128 trap
]

EPS = 1e-12  # layer_norm_eps of config.json


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * w + b


_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def embed(w, cfg, ids):
    n = len(ids)
    g = lambda k: w[k].astype(np.float64)
    x = g("embeddings.word_embeddings.weight")[ids]
    x = x + g("embeddings.position_embeddings.weight")[:n] + g("embeddings.token_type_embeddings.weight")[0]
    x = layer_norm(x, g("embeddings.LayerNorm.weight"), g("embeddings.LayerNorm.bias"))
    heads = cfg["num_attention_heads"]
    hd = cfg["hidden_size"] // heads
    for layer in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        lin = lambda t, name: t @ g(p + name + ".weight").T + g(p + name + ".bias")
        q = lin(x, "attention.self.query").reshape(n, heads, hd).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(n, heads, hd).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(n, heads, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, heads * hd)
        x = layer_norm(lin(ctx, "attention.output.dense") + x, g(p + "attention.output.LayerNorm.weight"),
                       g(p + "attention.output.LayerNorm.bias"))
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(lin(h, "output.dense") + x, g(p + "output.LayerNorm.weight"), g(p + "output.LayerNorm.bias"))
    pooled = x.mean(0)  # one unpadded input: every token is real
    return pooled / np.linalg.norm(pooled)


def main():
    d = sys.argv[1]
    cfg = json.load(open(f"{d}/config.json"))
    w = load_file(f"{d}/model.safetensors")
    tok = Tokenizer.from_file(f"{d}/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(cfg["max_position_embeddings"])
    out = []
    for t in TEXTS:
        ids = tok.encode(t).ids
        vec = embed(w, cfg, ids)
        out.append({"text": t, "tokens": len(ids), "ids": ids, "embedding": [round(float(x), 8) for x in vec]})
    json.dump({"model": "sentence-transformers/all-MiniLM-L6-v2", "generator": "tests/vec_reference.py (numpy float64)",
               "cases": out}, sys.stdout, indent=None)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
