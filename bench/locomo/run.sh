#!/usr/bin/env bash
# Session retrieval on LoCoMo (Maharana et al., ACL 2024: ten very long conversations, 1,986
# questions over 272 dated sessions): the public long-term conversational-memory benchmark the
# issue-41 held-out set is built from. Each conversation is its own memory (one `brain eval` set
# per conversation, built by corpus.py at run time into $BENCH_DIR/locomo, never into the repo);
# each question's relevant documents are the sessions its evidence turns are in. score.py prints
# session Recall@5 and hit@5 over all questions, per LoCoMo category.
#
#   bench/locomo/run.sh [MODEL_DIR…]   # lex and auto without vectors, then auto and hybrid per
#                                      # model folder (default: every model in target/models)
#   LOCOMO=path/to/locomo10.json bench/locomo/run.sh    # a copy you have (file, or the folder of
#                                                       # per-conversation files in the zip)
#
# Without $LOCOMO it downloads data/locomo10.zip from the LoCoMo repository at a pinned commit and
# checks its sha256. Needs python3, unzip (for the zip) and release binaries
# (cargo build --release -p brain).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
SET=$BENCH_DIR/locomo
COMMIT=e76cdff4a04fce19090596d49862fe87a5c15aaa
SHA=5c342973da4b45c12583c9fc7594d6410880f5aba2c491a0db09db262c906fb5
. bench/lib.sh
need_tools python3 unzip curl sha256sum
need_bins brain
mkdir -p "$SET"
src=${LOCOMO:-}
if [ -z "$src" ]; then
  zip=$SET/locomo10.zip
  if [ ! -f "$zip" ]; then
    url=https://github.com/snap-research/locomo/raw/$COMMIT/data/locomo10.zip
    if ! curl -fsSL --max-time 120 -o "$zip.part" "$url"; then
      rm -f "$zip.part"
      echo "bench/locomo: NOT RUN: could not download $url (set LOCOMO to a copy of locomo10.json)"
      exit 0
    fi
    mv "$zip.part" "$zip"
  fi
  echo "$SHA  $zip" | sha256sum -c --quiet - || { echo "bench/locomo/run.sh: $zip is not the pinned file" >&2; exit 1; }
  rm -rf "$SET/zip" && mkdir -p "$SET/zip" && unzip -q -o "$zip" -d "$SET/zip"
  src=$SET/zip/data/multimodal_dialog/locomo10_v2
fi
rm -rf "$SET/sets" && python3 bench/locomo/corpus.py "$src" "$SET/sets" --split
echo "locomo: $(cat "$SET"/sets/*/corpus.jsonl | wc -l) sessions, $(cat "$SET"/sets/*/queries.jsonl | wc -l) questions, $(ls "$SET/sets" | wc -l) conversations"
# One run: every conversation evaluated with `brain eval ARG…`, then the scores over all of them.
# With HOMES, each conversation keeps its home there (its sessions embedded once per model).
run() {
  local tag=$1 c; shift
  mkdir -p "$SET/out/$tag"
  for c in "$SET"/sets/*/; do
    c=$(basename "$c")
    "$BIN/brain" eval --defaults --json "$@" ${HOMES:+--home "$HOMES/$c"} "$SET/sets/$c" > "$SET/out/$tag/$c.json"
  done
  python3 bench/locomo/score.py "$tag" "$SET/out/$tag"
}
# Auto without vectors: a home with no model, and no embedder named.
export BRAIN_HOME=$SET/no-model-home
unset BRAIN_EMBEDDER
run lex --mode lex
run auto --mode auto
unset BRAIN_HOME   # the runs below name their model
[ $# -gt 0 ] || set -- $(installed_models)
for model in "$@"; do
  name=$(basename "$model")
  mkdir -p "$SET/homes/$name"
  for mode in auto hybrid; do
    HOMES=$SET/homes/$name run "$mode-$name" --mode "$mode" --embedder "local:$model"
  done
done
