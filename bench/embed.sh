#!/usr/bin/env bash
# Embedding throughput, side by side on the same texts, same model, same two cores, one run:
#   * brain's batch kernel chosen for this CPU (int8 on AVX-512 VNNI, see docs/vectors.md),
#   * brain's f32 kernel (BRAIN_EMBED_KERNEL=f32, every CPU),
#   * sentence-transformers on PyTorch's CPU path (bench/.st, from bench/setup-st.sh; skipped when absent
#     unless BENCH_ST=1, which installs it — several GB from PyPI).
# The three run in turn, round by round (A B C A B C: each round sees the same machine), and each
# reports wall and CPU time (user + system of the whole process: brain's from the kernel,
# sentence-transformers' from time.process_time() around its encode). The share of the int8 peak
# divides by this CPU's measured peak (the int8_peak example: vpdpbusd on every core), not by a
# clock read from /proc/cpuinfo.
# Texts: ~256-token chunks of SciFact abstracts (../shared/ir/scifact, read in place). Prints tokens/s
# and tokens per CPU-second (medians of REPEAT rounds, default 3), the ratios, cosine agreement of the
# vectors (p1, p50, min) and the projected time for the 10,000-file corpus. Never fails on speed.
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

# The CPU's int8 peak, measured (cargo builds the example once).
peak_bin="${CARGO_TARGET_DIR:-target}/release/examples/int8_peak"
[ -x "$peak_bin" ] || cargo build --release -q -p brain-vec --example int8_peak >&2 || true
peak_line=$([ -x "$peak_bin" ] && "$peak_bin" 1 || echo "int8 peak: not measured (no int8_peak example)")

st="bench/.st/bin/python"
if [ ! -x "$st" ] && [ "${BENCH_ST:-0}" = 1 ]; then bash bench/setup-st.sh; fi
[ -x "$st" ] || echo "embed.sh: sentence-transformers not installed (BENCH_ST=1 bench/embed.sh, or bench/setup-st.sh); brain only" >&2

# sentence-transformers: one timed encode of every text (same texts, same model folder, 2 threads,
# no truncation below 512); "st tokens/s R cpu C" on stderr, the vectors on stdout.
st_round() {
  CUDA_VISIBLE_DEVICES= HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false "$st" - "$model" "$out/embed-chunks.ndjson" \
    > "$out/embed-vectors-st.ndjson" 2> "$out/embed-st.txt" <<'PY'
import json, sys, time
import torch
from sentence_transformers import SentenceTransformer
torch.set_num_threads(2)
model_dir, path = sys.argv[1], sys.argv[2]
m = SentenceTransformer(model_dir, device="cpu")
# The model's passage prompt (e5's "passage: "), put before each text as brain puts it.
prompt = (getattr(m, "prompts", None) or {}).get("passage", "")
texts = [prompt + json.loads(l)["text"] for l in open(path)]
m.max_seq_length = 512
tokens = sum(len(m.tokenizer(t, truncation=True, max_length=512)["input_ids"]) for t in texts)
m.encode(texts[:8], batch_size=32)
w0, c0 = time.perf_counter(), time.process_time()
vecs = m.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
for v in vecs:
    print(json.dumps({"embedding": [float(x) for x in v]}))
print(f"st tokens/s {tokens / wall:.0f} cpu {cpu:.3f} tokens {tokens} torch {torch.__version__} threads {torch.get_num_threads()}", file=sys.stderr)
PY
}

# Round by round: brain int8 (auto), brain f32, sentence-transformers.
: > "$out/embed-runs.txt"; : > "$out/embed-st-runs.txt"
for r in $(seq "$repeat"); do
  for k in auto f32; do
    /usr/bin/time -f "cpu %U %S" -o "$out/embed-time.txt" env BRAIN_EMBED_KERNEL=$k BRAIN_HOME="$home" \
      "$bin" --embed --embedder "local:$model" \
      < "$out/embed-chunks.ndjson" > "$out/embed-vectors-$k.ndjson" 2> "$out/embed-run.txt"
    echo "$k $(cat "$out/embed-run.txt") $(tail -n1 "$out/embed-time.txt")" >> "$out/embed-runs.txt"
  done
  if [ -x "$st" ]; then st_round && cat "$out/embed-st.txt" >> "$out/embed-st-runs.txt"; fi
done

python3 - "$out" "$load_ms" "$model" "$peak_line" <<'PY'
import json, math, os, re, statistics, sys
out, load_ms, model_dir, peak_line = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rate = {"auto": [], "f32": [], "st": []}
per_cpu = {"auto": [], "f32": [], "st": []}
kernel = "?"
for line in open(f"{out}/embed-runs.txt"):
    k, rest = line.split(" ", 1)
    m = re.search(r"kernel ([\w-]+); embedded (\d+) texts, (\d+) tokens in ([0-9.]+) s: (\d+) tokens/s", rest)
    c = re.search(r"cpu ([0-9.]+) ([0-9.]+)\s*$", rest)
    if m:
        rate[k].append(int(m.group(5)))
        if c:
            per_cpu[k].append(int(m.group(3)) / (float(c.group(1)) + float(c.group(2))))
        if k == "auto":
            kernel = m.group(1)
if os.path.exists(f"{out}/embed-st-runs.txt"):
    for line in open(f"{out}/embed-st-runs.txt"):
        m = re.search(r"st tokens/s (\d+) cpu ([0-9.]+) tokens (\d+)", line)
        if m:
            rate["st"].append(int(m.group(1)))
            per_cpu["st"].append(int(m.group(3)) / float(m.group(2)))
def vecs(name):
    p = f"{out}/embed-vectors-{name}.ndjson"
    return [json.loads(l)["embedding"] for l in open(p)] if os.path.exists(p) and os.path.getsize(p) else None
rows = [json.loads(l) for l in open(f"{out}/embed-vectors-f32.ndjson")]
toks = [r["tokens"] for r in rows]
med = lambda xs: statistics.median(xs) if xs else None
fast, f32, st = med(rate["auto"]), med(rate["f32"]), med(rate["st"])
print(f"chunks: {len(rows)}, mean tokens/chunk: {sum(toks)/len(toks):.0f}; model load {load_ms} ms (fresh process, page cache warm); {len(rate['auto'])} rounds, A B C alternated")
print(f"{'embedder':<34} {'tokens/s':>9} {'tokens/CPU-s':>13}   runs (tokens/s)")
names = [("auto", "brain " + kernel), ("f32", "brain f32"), ("st", "sentence-transformers (torch cpu)")]
for k, name in names:
    if rate[k]:
        pc = med(per_cpu[k])
        print(f"{name:<34} {med(rate[k]):>9.0f} {pc if pc else float('nan'):>13.0f}   {' '.join(map(str, rate[k]))}")
if st:
    print(f"ratio brain {kernel} / sentence-transformers: {fast / st:.2f}x wall, {med(per_cpu['auto']) / med(per_cpu['st']):.2f}x CPU (tokens per CPU-second);  brain f32: {f32 / st:.2f}x wall")
print(f"ratio brain {kernel} / brain f32: {fast / f32:.2f}x")
# Share of this CPU's measured int8 peak: multiply-adds per token of the model's linear layers
# (4 h^2 + 2 h i per layer) and of attention (2 h x mean length) at brain's rate per CPU-second,
# against the int8_peak example's multiply-adds per core-second.
try:
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    h, i, layers = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    mean_len = sum(toks) / len(toks)
    macs = layers * (4 * h * h + 2 * h * i + 2 * h * mean_len)
    m = re.search(r"\(([0-9.]+) per core", peak_line)
    print(peak_line)
    if kernel.startswith("int8") and m and per_cpu["auto"]:
        core_peak = float(m.group(1)) * 1e9
        used = med(per_cpu["auto"]) * macs
        print(f"share of the measured int8 peak per CPU-second: {used / core_peak * 100:.0f}% ({used / 1e9:.0f} G multiply-adds per CPU-second of {core_peak / 1e9:.0f} G per core; {macs / 1e6:.1f} M per token)")
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
