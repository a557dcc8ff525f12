#!/usr/bin/env bash
# Embedding throughput, side by side on the same texts, same model, same two cores, one run:
#   * brain's batch kernel chosen for this CPU (int8 on AVX-512 VNNI, see docs/vectors.md),
#   * brain's f32 kernel (BRAIN_EMBED_KERNEL=f32, every CPU),
#   * sentence-transformers on PyTorch's CPU path (bench/.st, from bench/setup-st.sh; skipped when absent
#     unless BENCH_ST=1, which installs it — several GB from PyPI).
# Texts: ~256-token chunks of SciFact abstracts (../shared/ir/scifact, read in place). Prints tokens/s
# (median of REPEAT runs, default 3), the ratios, cosine agreement of the vectors (p1, p50, min) and the
# projected time for the 10,000-file corpus. Never fails on speed.
#
#   bench/embed.sh [N_CHUNKS]        default 200 chunks; needs target/release/vecindex and the model
#                                    (scripts/fetch-model.sh) — or BRAIN_TEST_MODEL_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}"
repeat="${REPEAT:-3}"
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

# brain, both kernels, alternated.
: > "$out/embed-runs.txt"
for r in $(seq "$repeat"); do
  for k in auto f32; do
    BRAIN_EMBED_KERNEL=$k BRAIN_HOME="$home" "$bin" --embed --embedder "local:$model" \
      < "$out/embed-chunks.ndjson" > "$out/embed-vectors-$k.ndjson" 2> "$out/embed-run.txt"
    echo "$k $(cat "$out/embed-run.txt")" >> "$out/embed-runs.txt"
  done
done

# sentence-transformers (same texts, same model folder, 2 threads, no truncation below 512).
st="bench/.st/bin/python"
if [ ! -x "$st" ] && [ "${BENCH_ST:-0}" = 1 ]; then bash bench/setup-st.sh; fi
if [ -x "$st" ]; then
  CUDA_VISIBLE_DEVICES= HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false "$st" - "$model" "$out/embed-chunks.ndjson" "$repeat" \
    > "$out/embed-vectors-st.ndjson" 2> "$out/embed-st.txt" <<'PY'
import json, statistics, sys, time
import torch
from sentence_transformers import SentenceTransformer
torch.set_num_threads(2)
model_dir, path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
m = SentenceTransformer(model_dir, device="cpu")
# The model's passage prompt (e5's "passage: "), put before each text as brain puts it.
prompt = (getattr(m, "prompts", None) or {}).get("passage", "")
texts = [prompt + json.loads(l)["text"] for l in open(path)]
m.max_seq_length = 512
tokens = sum(len(m.tokenizer(t, truncation=True, max_length=512)["input_ids"]) for t in texts)
m.encode(texts[:8], batch_size=32)
rates = []
for _ in range(repeat):
    t0 = time.perf_counter()
    vecs = m.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    rates.append(tokens / (time.perf_counter() - t0))
for v in vecs:
    print(json.dumps({"embedding": [float(x) for x in v]}))
print(f"st tokens/s {statistics.median(rates):.0f} runs {' '.join(f'{r:.0f}' for r in rates)} torch {torch.__version__} threads {torch.get_num_threads()}", file=sys.stderr)
PY
else
  echo "embed.sh: sentence-transformers not installed (BENCH_ST=1 bench/embed.sh, or bench/setup-st.sh); brain only" >&2
fi

python3 - "$out" "$load_ms" "$model" <<'PY'
import json, math, os, re, statistics, sys
out, load_ms, model_dir = sys.argv[1], sys.argv[2], sys.argv[3]
runs = {"auto": [], "f32": []}
kernel = "?"
for line in open(f"{out}/embed-runs.txt"):
    k, rest = line.split(" ", 1)
    m = re.search(r"kernel ([\w-]+); embedded (\d+) texts, (\d+) tokens in ([0-9.]+) s: (\d+) tokens/s", rest)
    if m:
        runs[k].append(int(m.group(5)))
        if k == "auto":
            kernel = m.group(1)
def vecs(name):
    p = f"{out}/embed-vectors-{name}.ndjson"
    return [json.loads(l)["embedding"] for l in open(p)] if os.path.exists(p) and os.path.getsize(p) else None
rows = [json.loads(l) for l in open(f"{out}/embed-vectors-f32.ndjson")]
toks = [r["tokens"] for r in rows]
fast, f32 = statistics.median(runs["auto"]), statistics.median(runs["f32"])
st_rate = None
if os.path.exists(f"{out}/embed-st.txt"):
    m = re.search(r"st tokens/s (\d+)", open(f"{out}/embed-st.txt").read())
    st_rate = int(m.group(1)) if m else None
print(f"chunks: {len(rows)}, mean tokens/chunk: {sum(toks)/len(toks):.0f}; model load {load_ms} ms (fresh process, page cache warm)")
print(f"{'embedder':<34} {'tokens/s (median)':>18} {'runs':>24}")
print(f"{'brain ' + kernel:<34} {fast:>18.0f} {' '.join(map(str, runs['auto'])):>24}")
print(f"{'brain f32':<34} {f32:>18.0f} {' '.join(map(str, runs['f32'])):>24}")
if st_rate:
    print(f"{'sentence-transformers (torch cpu)':<34} {st_rate:>18.0f}")
    print(f"ratio brain {kernel} / sentence-transformers: {fast / st_rate:.2f}x;  brain f32 / sentence-transformers: {f32 / st_rate:.2f}x")
print(f"ratio brain {kernel} / brain f32: {fast / f32:.2f}x")
# Share of the machine's int8 peak (issue 41): multiply-adds per token of the model's linear layers
# (4 h^2 + 2 h i per layer) and of attention (2 h × mean length), against one AVX-512 VNNI
# vpdpbusd (64 int8 multiply-adds) per cycle per core at the clock /proc/cpuinfo reports —
# indicative: the clock moves, and some CPUs issue two per cycle.
try:
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    h, i, layers = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    mean_len = sum(toks) / len(toks)
    macs = layers * (4 * h * h + 2 * h * i + 2 * h * mean_len)
    mhz = [float(l.split(":")[1]) for l in open("/proc/cpuinfo") if l.startswith("cpu MHz")]
    cores = os.cpu_count() or 1
    if kernel.startswith("int8") and mhz:
        peak = cores * statistics.mean(mhz) * 1e6 * 64
        print(f"share of int8 peak: {fast * macs / peak * 100:.0f}% ({fast * macs / 1e9:.0f} G multiply-adds/s of {peak / 1e9:.0f} G: {cores} cores x {statistics.mean(mhz):.0f} MHz x 64; {macs / 1e6:.1f} M per token)")
except (OSError, KeyError, ValueError) as e:
    print(f"share of int8 peak: not computed ({e})")
def agree(a, b):
    cs = sorted(sum(x * y for x, y in zip(u, v)) / (math.sqrt(sum(x * x for x in u)) * math.sqrt(sum(y * y for y in v))) for u, v in zip(a, b))
    return cs[max(0, len(cs) // 100 - 1)] if len(cs) >= 100 else cs[0], statistics.median(cs), cs[0]
va, vf, vs = vecs("auto"), vecs("f32"), vecs("st")
p1, p50, lo = agree(va, vf)
print(f"cosine brain {kernel} vs brain f32: p1 {p1:.5f}  p50 {p50:.5f}  min {lo:.5f}")
if vs:
    p1, p50, lo = agree(vf, vs)
    print(f"cosine brain f32 vs sentence-transformers: p1 {p1:.5f}  p50 {p50:.5f}  min {lo:.5f}")
# The 10,000-file corpus: ~6 chunks of ~256 tokens per file (seed 000's sessions average ~1,500 tokens).
chunks = 10_000 * 6
cps = fast / (sum(toks) / len(toks))
print(f"projected 10,000 files (~{chunks} chunks) with brain {kernel}: {chunks / cps / 60:.1f} min")
PY
