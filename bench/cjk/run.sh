#!/usr/bin/env bash
# The CJK check (issue 56): 32 judged questions, 16 in Japanese and 16 in Chinese, over the
# section-1 man pages both translate (163 commands × 2 languages = 326 documents; Debian bookworm's
# manpages-ja 0.5.0.0.20221215+dfsg-1 and manpages-zh 1.6.4.0-1, fetched with apt and pinned by
# sha256, rendered with man(1) into $BENCH_DIR/cjk, never into the repo). Each question asks for
# what one command does without naming it, written without spaces as these languages are; its
# answer is that command's page in the question's language (bench/cjk/qrels/test.tsv).
#
#   bench/cjk/run.sh [MODEL_DIR…]    # lexical, then vectors and hybrid per model folder
#                                    # (default: every model in target/models)
#
# Needs apt-get, dpkg-deb, man, col and release binaries (cargo build --release -p brain).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
. bench/lib.sh
manpage_set bench/cjk "$BENCH_DIR/cjk" \
  manpages-ja=0.5.0.0.20221215+dfsg-1=4d270e9a1e83be4de0c072a110892a17dc9caa4b501257324006ac28d82c5743=ja \
  manpages-zh=1.6.4.0-1=81bae29495f6445db290e3f329f1203eb19b651c2a7ea165b74ebdc853a32ac1=zh_CN \
  -- "$@"
