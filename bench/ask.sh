#!/usr/bin/env bash
# Query latency, fresh process each time: `brain ask`, `rank | fmt` and `qmd search` side by side on
# the same corpora — the generated sessions-like corpus (bench/gen_corpus.py, 10,000 files, ~200 MB)
# and BEIR SciFact (../shared/ir/scifact, 5,183 abstracts as markdown files) — with medians, ratios
# and peak RSS.
#
#   bench/ask.sh        # needs release binaries: cargo build --release -p brain -p rank -p fmt -p lexindex
#
# Env: QMD (default bench/.qmd/bin/qmd; bench/setup-qmd.sh installs it), BENCH_DIR (default
#      /tmp/brain-bench; corpora, homes and QMD's index live there, never in the repo), FILES / MB,
#      RUNS (default 15 runs per query and tool), CARGO_TARGET_DIR.
# Prints medians and ratios; never fails on a figure (benchmarks do not gate CI).
#
# Two harnesses time the same fresh processes. The bash loop (always) forks this shell for every run,
# ~1-3 ms that lands on brain's few milliseconds, not on QMD's hundreds. hyperfine (when installed,
# `apt-get install hyperfine`; HYPERFINE=path) starts each command directly (`-N`, no shell); the
# pipe `rank | fmt` goes through its shell, whose start-up it measures and subtracts.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-10000}
MB=${MB:-200}
RUNS=${RUNS:-15}
QMD=${QMD:-$ROOT/bench/.qmd/bin/qmd}
SCIFACT=${SCIFACT:-$ROOT/../shared/ir/scifact}
export BRAIN_NOW=2026-04-10T12:00:00Z NO_COLOR=1

for b in brain rank fmt lexindex; do
  [ -x "$BIN/$b" ] || { echo "bench/ask.sh: $BIN/$b missing: cargo build --release -p brain -p rank -p fmt -p lexindex" >&2; exit 1; }
done

# Timings read bash's own clock (`${EPOCHREALTIME/./}`, microseconds) with no command substitution:
# `$(date …)` forks a process per reading, ~1.7 ms that was counted into every timed run (measured
# 2026-11-23: /bin/true timed 2.8 ms that way, 1.0 ms this way).
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 1; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
rss_mb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {printf "%.1f", $2/1024}'; }

# per_query_ms NAME CMD-TEMPLATE QUERIES…: median over RUNS fresh processes of every query, all pooled.
pooled() {
  local fn=$1; shift
  local t=()
  for q in "$@"; do
    for _ in $(seq "$RUNS"); do
      local s=${EPOCHREALTIME/./}; "$fn" "$q" >/dev/null 2>&1; local e=${EPOCHREALTIME/./}; t+=($(( e - s )))
    done
  done
  printf '%s\n' "${t[@]}" | median | awk '{printf "%.2f", $1 / 1000}'
}

# cpu_mean FN QUERIES…: mean CPU (user + sys) per fresh process, in ms — robust to other load on the
# machine, unlike wall time. Uses the shell's `times` (children's CPU, ms resolution).
cpu_of() { tail -1 "$1" | awk '{s = 0; for (i = 1; i <= 2; i++) {split($i, a, /[ms]/); s += a[1] * 60000 + a[2] * 1000}; printf "%d", s}'; }
cpu_mean() {
  local fn=$1; shift
  local f0 f1 n=0
  f0=$(mktemp); f1=$(mktemp)
  times > "$f0"   # in this shell: `times` in a $(…) subshell would not see these children
  for q in "$@"; do for _ in $(seq "$RUNS"); do "$fn" "$q" >/dev/null 2>&1; n=$((n + 1)); done; done
  times > "$f1"
  awk -v a="$(cpu_of "$f1")" -v b="$(cpu_of "$f0")" -v n="$n" 'BEGIN {printf "%.1f", (a - b) / n}'
  rm -f "$f0" "$f1"
}

# index_home HOME CORPUS: a brain home with one collection `bench` at CORPUS, indexed.
index_home() {
  local home=$1 corpus=$2
  if [ ! -f "$home/index/lex/meta.json" ]; then
    mkdir -p "$home"
    printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\n    role: sessions\npartition:\n  default: bench\n' "$corpus" > "$home/brain.yaml"
  fi
  # Always: an unchanged home is a quick no-op, an index of an older schema is rebuilt.
  BRAIN_HOME=$home "$BIN/lexindex" --all -q
}

# qmd_home QHOME CORPUS: QMD's index of CORPUS (collection `bench`), built once.
qmd_home() {
  local qhome=$1 corpus=$2
  if [ ! -f "$qhome/.built" ]; then
    rm -rf "$qhome"; mkdir -p "$qhome"
    HOME=$qhome XDG_CACHE_HOME=$qhome/cache XDG_CONFIG_HOME=$qhome/config "$QMD" collection add "$corpus" --name bench >/dev/null 2>&1 \
      && touch "$qhome/.built"
  fi
}

# hf_pooled SHELL_MODE CMD-PREFIX QUERIES…: one hyperfine run over every query (RUNS runs each, 2
# warm-ups); prints "p50_ms cpu_ms" — the median of all runs pooled, and the mean user+sys CPU.
# SHELL_MODE: -N (no shell; each query appended as one quoted word) or a pipe template with {q}.
HYPERFINE=${HYPERFINE:-$(command -v hyperfine || true)}
hf_pooled() {
  local mode=$1 prefix=$2; shift 2
  local json cmds=() q
  json=$(mktemp)
  for q in "$@"; do
    if [ "$mode" = -N ]; then cmds+=("$prefix $(printf '%q' "$q")"); else cmds+=("${prefix//\{q\}/$(printf '%q' "$q")}"); fi
  done
  if [ "$mode" = -N ]; then
    "$HYPERFINE" -N -i --style none --warmup 2 --runs "$RUNS" --export-json "$json" "${cmds[@]}" >/dev/null 2>&1
  else
    "$HYPERFINE" -i --style none --warmup 2 --runs "$RUNS" --export-json "$json" "${cmds[@]}" >/dev/null 2>&1
  fi
  python3 - "$json" <<'PY'
import json, statistics, sys
rs = json.load(open(sys.argv[1]))["results"]
times = [t for r in rs for t in r["times"]]
cpu = statistics.mean(r["user"] + r["system"] for r in rs)
print(f"{statistics.median(times) * 1000:.2f} {cpu * 1000:.1f}")
PY
  rm -f "$json"
}

run_ask() { "$BIN/brain" ask -n 10 "$1"; }
run_pipe() { "$BIN/rank" -n 10 "$1" | "$BIN/fmt"; }
run_qmd() { HOME=$QHOME XDG_CACHE_HOME=$QHOME/cache XDG_CONFIG_HOME=$QHOME/config "$QMD" search -n 10 "$1"; }

# bench_corpus LABEL CORPUS QUERIES…
bench_corpus() {
  local label=$1 corpus=$2; shift 2
  export BRAIN_HOME=$BENCH_DIR/ask-home-$label
  index_home "$BRAIN_HOME" "$corpus"
  local hits; hits=$("$BIN/brain" ask --json -n 10 "$1" | grep -o '"count":[0-9]*')
  local ask pipe; ask=$(pooled run_ask "$@"); pipe=$(pooled run_pipe "$@")
  local rss; rss=$(rss_mb "$BIN/brain" ask -n 10 "$1")
  local cpu; cpu=$(cpu_mean run_ask "$@")
  echo "$label: brain ask p50 ${ask} ms (CPU ${cpu} ms/process); rank | fmt p50 ${pipe} ms; brain ask peak RSS ${rss} MB ($# queries x $RUNS runs; first query $hits); load average $(cut -d' ' -f1 /proc/loadavg)"
  if [ -x "$QMD" ]; then
    QHOME=$BENCH_DIR/qmd-ask-home-$label
    qmd_home "$QHOME" "$corpus"
    local qruns=$RUNS; RUNS=3
    local q; q=$(pooled run_qmd "$@")
    local qcpu; qcpu=$(cpu_mean run_qmd "$@")
    RUNS=$qruns
    local qrss; qrss=$(HOME=$QHOME XDG_CACHE_HOME=$QHOME/cache XDG_CONFIG_HOME=$QHOME/config rss_mb "$QMD" search -n 10 "$1")
    echo "$label: qmd search p50 ${q} ms (CPU ${qcpu} ms/process; 3 runs per query); peak RSS ${qrss} MB"
    echo "$label: ratio qmd search / brain ask: wall $(awk -v a="$q" -v b="$ask" 'BEGIN {printf "%.1f", a / b}')x, CPU $(awk -v a="$qcpu" -v b="$cpu" 'BEGIN {printf "%.1f", a / (b > 0 ? b : 0.1)}')x (target >= 40x)"
    if [ -n "$HYPERFINE" ]; then
      local h hq hp qruns=$RUNS
      h=$(hf_pooled -N "$BIN/brain ask -n 10" "$@")
      hp=$(hf_pooled sh "$BIN/rank -n 10 {q} | $BIN/fmt" "$@")
      RUNS=3
      hq=$(HOME=$QHOME XDG_CACHE_HOME=$QHOME/cache XDG_CONFIG_HOME=$QHOME/config hf_pooled -N "$QMD search -n 10" "$@")
      RUNS=$qruns
      read -r ha hc <<< "$h"; read -r qa qc <<< "$hq"; read -r pa _ <<< "$hp"
      echo "$label: hyperfine (no shell): brain ask p50 ${ha} ms (CPU ${hc} ms); rank | fmt p50 ${pa} ms; qmd search p50 ${qa} ms (CPU ${qc} ms)"
      echo "$label: hyperfine ratio qmd search / brain ask: wall $(awk -v a="$qa" -v b="$ha" 'BEGIN {printf "%.1f", a / b}')x, CPU $(awk -v a="$qc" -v b="$hc" 'BEGIN {printf "%.1f", a / (b > 0 ? b : 0.1)}')x; qmd / rank | fmt: $(awk -v a="$qa" -v b="$pa" 'BEGIN {printf "%.1f", a / b}')x (target >= 40x)"
    fi
  else
    echo "$label: qmd not installed (bench/setup-qmd.sh); anchor measured earlier: qmd search 400-900 ms"
  fi
}

# 1. The generated sessions-like corpus.
CORPUS=$BENCH_DIR/corpus-$FILES-$MB
[ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$FILES" --mb "$MB" || exit 1
bench_corpus sessions "$CORPUS" \
  "lock contention writer" "retry timeout in the worker queue" "parse_config" "cargo test --workspace" \
  "why did the cache migration fail" "flaky test panic thread" "vector embed model prompt" "deploy branch review"

# 2. SciFact as markdown files (title as frontmatter, abstract as body).
if [ -f "$SCIFACT/corpus.jsonl" ]; then
  SF=$BENCH_DIR/scifact-md
  if [ ! -d "$SF" ]; then
    mkdir -p "$SF"
    python3 - "$SCIFACT/corpus.jsonl" "$SF" <<'PY'
import json, sys, os
src, out = sys.argv[1], sys.argv[2]
for line in open(src):
    d = json.loads(line)
    title = d.get("title", "").replace('"', "'")
    with open(os.path.join(out, d["_id"] + ".md"), "w") as f:
        f.write(f'---\ntitle: "{title}"\ndate: 2020-01-01\n---\n{d.get("text", "")}\n')
PY
  fi
  mapfile -t QS < <(python3 -c '
import json, sys
ids = {l.split("\t")[0] for l in open(sys.argv[2]).read().splitlines()[1:]}
n = 0
for line in open(sys.argv[1]):
    q = json.loads(line)
    if q["_id"] in ids and n < 10:
        print(q["text"].replace("\"", "")); n += 1
' "$SCIFACT/queries.jsonl" "$SCIFACT/qrels/test.tsv")
  bench_corpus scifact "$SF" "${QS[@]}"
fi
