#!/usr/bin/env bash
# `brain watch` (issue 57): how soon a change is searchable, what watching costs at rest, and how a
# checkout of 10,000 files is taken — on a home of every agent's sessions in ../shared/corpora plus
# a vault of 10,000 generated notes (bench/gen_corpus.py), the watcher watching the vault and a
# copy of the Claude Code corpus in the user's ~/.claude/projects.
#
#   bench/watch.sh      # needs release binaries: cargo build --release --workspace --bins
#
# Figures:
#   note   a new note with a word of its own written to the vault → the first `brain ask --mode
#          lex WORD` that lists it (asked in a loop, nothing slept): p50 / p95 over RUNS notes
#   turn   a new user turn appended to a transcript in ~/.claude/projects → the same
#   idle   the watcher's CPU (user + system, /proc) over IDLE seconds with nothing changing, as a
#          share of one core
#   burst  10,000 files written at once into a new vault folder (a checkout): the batches the
#          watcher ran for them and the seconds until doctor's corpus_sync passes
#
# Env: BENCH_DIR (default /tmp/brain-bench), RUNS (default 10), IDLE (default 60), NOTES (default
# 10000). Prints figures; never fails on one (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
RUNS=${RUNS:-10}
IDLE=${IDLE:-60}
NOTES=${NOTES:-10000}
CORPORA=$ROOT/../shared/corpora
export BRAIN_TELEMETRY=off NO_COLOR=1

. bench/lib.sh
need_bins brain jsonl2md partition lexindex chrome2md
[ -d "$CORPORA" ] || { echo "$0: $CORPORA missing" >&2; exit 1; }
export PATH=$BIN:$PATH

W=$BENCH_DIR/watch
rm -rf "$W"; mkdir -p "$W/u/.claude/projects" "$W/vault"
export HOME=$W/u BRAIN_HOME=$W/u/.brain
mkdir -p "$BRAIN_HOME"
python3 bench/gen_corpus.py "$W/vault/gen" --files "$NOTES" --mb $(( NOTES / 200 )) --vocab zipf >/dev/null
printf 'version: 1\ncollections:\n  - name: vault\n    path: %s\n    role: notes\n  - name: sessions\n    path: corpus/sessions\n    role: sessions\npartition:\n  default: sessions\n' "$W/vault" > "$BRAIN_HOME/brain.yaml"
cp -r "$CORPORA/claude-code/." "$W/u/.claude/projects/"
jsonl2md -q "$CORPORA"/{codex,gemini,cursor,opencode,aider} | partition -q >/dev/null
lexindex --all -q
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1); $(nproc) cores"
echo "home: $(find "$W/vault" -name '*.md' | wc -l) vault notes, every agent's corpus sessions"

brain watch --json --embed-budget 0 > "$W/watch.ndjson" 2> "$W/watch.err" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -f "$BENCH_ERR"' EXIT
until grep -q '"kind":"batch"' "$W/watch.ndjson" 2>/dev/null; do sleep 0.2; done
echo "start (catch-up of the copied transcripts): $(grep -m1 '"kind":"batch"' "$W/watch.ndjson" | python3 -c 'import json,sys; b=json.loads(sys.stdin.read()); print(b["indexed"], "documents in", b["secs"], "s")')"

found_us() { # WORD: microseconds until `brain ask` lists it, counted from START
  local word=$1
  until brain ask --mode lex -n 1 "$word" 2>/dev/null | grep -q "$word"; do :; done
  echo $(( ${EPOCHREALTIME/./} - START ))
}

: > "$W/note.us"; : > "$W/turn.us"
T=$W/u/.claude/projects/bench-session.jsonl
for i in $(seq "$RUNS"); do
  word="zebranote$i"
  START=${EPOCHREALTIME/./}
  printf -- '---\ntitle: Note %s\n---\nThe %s migration keeps a blue table.\n' "$i" "$word" > "$W/vault/n-$i.md"
  found_us "$word" >> "$W/note.us"
  word="quokkaturn$i"
  line=$(printf '{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"00000000-0000-4000-8000-00000000b%03d","version":"2.1.3","uuid":"u%s","timestamp":"2026-11-21T10:00:00.000Z","type":"user","message":{"role":"user","content":"why is the %s queue stuck"}}' "$i" "$i" "$word")
  START=${EPOCHREALTIME/./}
  echo "$line" >> "$T"
  found_us "$word" >> "$W/turn.us"
  sleep 0.5
done
echo "note searchable after: p50 $(pct 0.5 < "$W/note.us") ms, p95 $(pct 0.95 < "$W/note.us") ms (N=$RUNS)"
echo "turn searchable after: p50 $(pct 0.5 < "$W/turn.us") ms, p95 $(pct 0.95 < "$W/turn.us") ms (N=$RUNS)"

sleep 3
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
t0=$(ticks); s0=${EPOCHREALTIME/./}
sleep "$IDLE"
t1=$(ticks); s1=${EPOCHREALTIME/./}
hz=$(getconf CLK_TCK)
echo "idle: $(python3 -c "print(f'{($t1-$t0)/$hz/(($s1-$s0)/1e6)*100:.3f}')") % of a core over ${IDLE} s"

before=$(grep -c '"kind":"batch"' "$W/watch.ndjson")
START=${EPOCHREALTIME/./}
python3 - "$W/vault/checkout" <<'PY'
import os, sys
out = sys.argv[1]
for i in range(10000):
    d = os.path.join(out, f"src{i % 50}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i}.md"), "w") as f:
        f.write(f"---\ntitle: File {i}\n---\nThe checkout file {i} holds word{i}.\n")
PY
wrote=$(( ${EPOCHREALTIME/./} - START ))
# doctor exits 65 while any check fails (no model here): only corpus_sync is read.
synced() {
  { brain doctor --json 2>/dev/null || true; } | python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if [c for c in r["checks"] if c["name"]=="corpus_sync"][0]["outcome"]=="pass" else 1)'
}
until synced; do sleep 0.2; done
done_us=$(( ${EPOCHREALTIME/./} - START ))
sleep 1
after=$(grep -c '"kind":"batch"' "$W/watch.ndjson")
echo "burst: 10,000 files written in $(( wrote / 1000 )) ms, taken in $(( after - before )) batches, all indexed after $(( done_us / 1000 )) ms"
grep '"kind":"batch"' "$W/watch.ndjson" | tail -n $(( after - before )) | cut -c1-200
