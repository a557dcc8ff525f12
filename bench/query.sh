#!/usr/bin/env bash
# Vector query figures: store open, brute-force scan p50 over 100k × 384 rows (and with a collection
# filter), model load, query embedding p50, and their sum for a fresh process vs a warm one.
#
#   bench/query.sh [ROWS]     default 100000; uses the model at target/models/all-MiniLM-L6-v2 if present
# Prints figures; never fails on speed.
set -euo pipefail
cd "$(dirname "$0")/.."
rows="${1:-100000}"
model="${BRAIN_TEST_MODEL_DIR:-target/models/all-MiniLM-L6-v2}"
cargo build --release -q -p brain-vec --example scan
exe="${CARGO_TARGET_DIR:-target}/release/examples/scan"
if [ -f "$model/model.safetensors" ]; then "$exe" "$rows" "$model"; else "$exe" "$rows"; fi
