#!/usr/bin/env bash
# The real-session recall set: 70 questions over the Claude Code, Codex and Gemini transcripts of
# ../shared/corpora, each with the sessions that answer it (2) or relate (1), in seven classes —
# literal, conceptual, decision, rejected, chronological, project, multi-session; 31 carry the line
# that answers them (metadata.evidence), so the report gives evidence in context too. The corpus is
# built from the transcripts at run time (jsonl2md's doc records, which brain eval reads as a corpus) into
# $BENCH_DIR/recall, never into the repo; then `brain eval` in lex and auto (and hybrid when a model
# is installed), with "now" fixed at 2026-05-20T12:00:00Z (UTC) for the questions that say "last
# week".
#
#   bench/recall/run.sh        # needs release binaries: cargo build --release -p brain -p jsonl2md
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
CORPORA=${CORPORA:-$ROOT/../shared/corpora}
SET=$BENCH_DIR/recall
export BRAIN_NOW=2026-05-20T12:00:00Z TZ=UTC

for b in brain jsonl2md; do
  [ -x "$BIN/$b" ] || { echo "bench/recall/run.sh: $BIN/$b missing: cargo build --release -p brain -p jsonl2md" >&2; exit 1; }
done
[ -d "$CORPORA/claude-code" ] || { echo "bench/recall/run.sh: no corpora at $CORPORA" >&2; exit 1; }
mkdir -p "$SET/qrels"
# brain eval reads jsonl2md's doc records as they are (id, title, body, date, ended, project, agent).
"$BIN/jsonl2md" "$CORPORA/claude-code" "$CORPORA/codex" "$CORPORA/gemini" 2>/dev/null > "$SET/corpus.jsonl"
cp bench/recall/queries.jsonl "$SET/queries.jsonl"
# qrels/all.tsv: every judgment (the set has no held-out part; `brain tune --split all` cuts a
# seeded dev part off it).
cp bench/recall/qrels/all.tsv "$SET/qrels/all.tsv"
echo "recall set: $(wc -l < "$SET/corpus.jsonl") sessions, $(wc -l < "$SET/queries.jsonl") questions"
# With a model (installed in the home, or named by $BRAIN_EMBEDDER) auto routes with vectors, as
# `brain ask` does, and hybrid runs too.
modes="lex auto"
{ [ -d "${BRAIN_HOME:-$HOME/.brain}/models" ] || [ -n "${BRAIN_EMBEDDER:-}" ]; } && modes="$modes hybrid"
for mode in $modes; do
  echo "== $mode"
  "$BIN/brain" eval --split all --mode "$mode" "$SET" 2>&1 | grep -v '^index\|^embed' || true
done
