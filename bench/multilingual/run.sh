#!/usr/bin/env bash
# The multilingual check (issue 41): 48 judged questions, 16 each in German, French and Spanish,
# over the section-1 man pages that all three languages translate (128 commands × 3 languages = 384
# documents; Debian bookworm's manpages-de/fr/es 4.18.1-1 from manpages-l10n, GPL-3+, fetched with
# apt and pinned by sha256, rendered with man(1) into $BENCH_DIR/multilingual, never into the
# repo). Each question asks for what one command does without naming it; its answer is that
# command's page in the question's language (bench/multilingual/qrels/test.tsv).
#
#   bench/multilingual/run.sh [MODEL_DIR…]    # lexical, then vectors and hybrid per model folder
#                                             # (default: every model in target/models)
#
# Needs apt-get, dpkg-deb, man, col and release binaries (cargo build --release -p brain).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
SET=$BENCH_DIR/multilingual
VERSION=4.18.1-1
declare -A SHA=(
  [de]=37d2e7ee51f22952aecec3af93647ff59194a3c74bb7a694560f49c7f7ab3978
  [fr]=ec29759cc0e4a44dc7719c1e32869d0060667049e584f09556f0d982b969ea33
  [es]=d21e9f85e487f149ae45b5c525b2b1a70ae7fd38d4b05b47c8753042c66f4c2b
)
. bench/lib.sh
need_tools apt-get dpkg-deb man col python3
need_bins brain
mkdir -p "$SET/debs" "$SET/qrels"
if [ ! -s "$SET/corpus.jsonl" ]; then
  for l in de fr es; do
    deb=$SET/debs/manpages-${l}_${VERSION}_all.deb
    [ -f "$deb" ] || (cd "$SET/debs" && apt-get download -q "manpages-$l=$VERSION" 2>/dev/null)
    echo "${SHA[$l]}  $deb" | sha256sum -c --quiet - || { echo "bench/multilingual/run.sh: $deb is not the pinned package" >&2; exit 1; }
    rm -rf "$SET/x-$l" && dpkg-deb -x "$deb" "$SET/x-$l"
  done
  python3 bench/multilingual/corpus.py "$SET" > "$SET/corpus.jsonl.tmp" && mv "$SET/corpus.jsonl.tmp" "$SET/corpus.jsonl"
fi
cp bench/multilingual/queries.jsonl "$SET/queries.jsonl"
cp bench/multilingual/qrels/test.tsv "$SET/qrels/test.tsv"
echo "multilingual set: $(wc -l < "$SET/corpus.jsonl") pages, $(wc -l < "$SET/queries.jsonl") questions"
report() { grep -v '^index\|^embed\|^Recall@100' || true; }
echo "== lex"
"$BIN/brain" eval --defaults --mode lex "$SET" 2>&1 | report
[ $# -gt 0 ] || set -- $(installed_models)
for model in "$@"; do
  for mode in vec hybrid; do
    echo "== $mode $(basename "$model")"
    "$BIN/brain" eval --defaults --mode "$mode" --embedder "local:$model" "$SET" 2>&1 | report
  done
done
