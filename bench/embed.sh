#!/usr/bin/env bash
# Embedding throughput of the local model: tokens/s and chunks/s on ~256-token chunks of SciFact abstracts
# (../shared/ir/scifact, read in place), model load time, and the projected time for a 10,000-file corpus.
#
#   bench/embed.sh [N_CHUNKS]        default 200 chunks; needs target/release/vecindex and the model
#                                    (scripts/fetch-model.sh) — or BRAIN_TEST_MODEL_DIR.
# Prints figures; never fails on speed.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}"
bin="${VECINDEX:-${CARGO_TARGET_DIR:-target}/release/vecindex}"
model="${BRAIN_TEST_MODEL_DIR:-target/models/all-MiniLM-L6-v2}"
scifact="../shared/ir/scifact/corpus.jsonl"
out="bench/out"; mkdir -p "$out"
[ -x "$bin" ] || { echo "embed.sh: $bin not built (cargo build --release -p vecindex)" >&2; exit 1; }
[ -f "$model/model.safetensors" ] || { echo "embed.sh: no model in $model (scripts/fetch-model.sh)" >&2; exit 1; }
[ -f "$scifact" ] || { echo "embed.sh: $scifact absent; skipped" >&2; exit 0; }

# ~256-token chunks: SciFact abstracts cut into windows of 190 words (~250 WordPiece tokens with the title).
python3 - "$scifact" "$n" > "$out/embed-chunks.ndjson" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
out = 0
for line in open(path):
    d = json.loads(line)
    words = d["text"].split()
    for i in range(0, max(len(words) - 60, 1), 190):
        print(json.dumps({"text": d["title"] + "\n\n" + " ".join(words[i:i + 190])}))
        out += 1
        if out >= n:
            sys.exit(0)
PY
home="$(mktemp -d)"; trap 'rm -rf "$home"' EXIT
echo '{"text":"warm up"}' | BRAIN_HOME="$home" "$bin" --embed --embedder "local:$model" >/dev/null 2>"$out/embed-load.txt"
load_ms=$(sed -n 's/.*model load \([0-9]*\) ms.*/\1/p' "$out/embed-load.txt")
BRAIN_HOME="$home" "$bin" --embed --embedder "local:$model" < "$out/embed-chunks.ndjson" > "$out/embed-vectors.ndjson" 2> "$out/embed-run.txt"
cat "$out/embed-run.txt"
python3 - "$out/embed-vectors.ndjson" "$out/embed-run.txt" "$load_ms" <<'PY'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
toks = [r["tokens"] for r in rows]
m = re.search(r"in ([0-9.]+) s: ([0-9]+) tokens/s, ([0-9.]+) texts/s", open(sys.argv[2]).read())
secs, tps, cps = float(m.group(1)), float(m.group(2)), float(m.group(3))
print(f"chunks: {len(rows)}, mean tokens/chunk: {sum(toks)/len(toks):.0f}")
print(f"tokens/s: {tps:.0f}   chunks/s: {cps:.1f}   model load: {sys.argv[3]} ms (fresh process, page cache warm)")
# The 10,000-file corpus: ~6 chunks of ~256 tokens per file (seed 000's sessions average ~1,500 tokens).
chunks = 10_000 * 6
print(f"projected 10,000 files (~{chunks} chunks): {chunks / cps / 60:.1f} min")
PY
