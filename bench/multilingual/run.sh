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
. bench/lib.sh
manpage_set bench/multilingual "$BENCH_DIR/multilingual" \
  manpages-de=4.18.1-1=37d2e7ee51f22952aecec3af93647ff59194a3c74bb7a694560f49c7f7ab3978=de \
  manpages-fr=4.18.1-1=ec29759cc0e4a44dc7719c1e32869d0060667049e584f09556f0d982b969ea33=fr \
  manpages-es=4.18.1-1=d21e9f85e487f149ae45b5c525b2b1a70ae7fd38d4b05b47c8753042c66f4c2b=es \
  -- "$@"
