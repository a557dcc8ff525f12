#!/usr/bin/env bash
# The walk of one `brain ask` through the project's own code (issue 54): every function of the
# project's crates and binaries gets a gdb breakpoint, each call records the stack of project frames
# (bench/walk/trace.py), and bench/walk/walk.py turns the stacks into the files execution passes
# through — stays, files, returns to a file already left, calls into engine.rs from another file.
#
#   bash bench/walk/run.sh [BRAIN_BINARY] [QUERY]     (needs gdb; a debug build: `cargo build -p brain`)
#
# BIN_B=<another debug brain> walks the same query with it too (e.g. a checkout of main built into
# its own target dir), for a before/after. A lexical home is made from the golden sessions (no
# vectors: auto mode answers lexically). Takes ~2.5 minutes a binary (a breakpoint per function).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN_A=${1:-$ROOT/${CARGO_TARGET_DIR:-target}/debug/brain}
QUERY=${2:-why did the cache migration fail}
command -v gdb >/dev/null || { echo "$0: skipped: needs gdb" >&2; exit 0; }
[ -x "$BIN_A" ] || { echo "$0: skipped: no debug build at $BIN_A (cargo build -p brain)" >&2; exit 0; }
STAGES=$(dirname "$BIN_A")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brain-walk.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export BRAIN_HOME=$WORK/home
mkdir -p "$BRAIN_HOME"
sessions=()
for d in "$ROOT"/golden/jsonl2md/*/; do
  case "$d" in */markdown-out-dir/) continue;; esac
  sessions+=("$d")
done
"$STAGES/jsonl2md" -q "${sessions[@]}" | "$STAGES/partition" -q | "$STAGES/lexindex" -q

walk() {
  local bin=$1 name=$2
  nm -C "$bin" | awk '$2 ~ /^[Tt]$/' | grep -E " <?(brain_[a-z_]+|brain)::" | awk '{print $1}' > "$WORK/$name.syms"
  WALK_SYMBOLS=$WORK/$name.syms WALK_OUT=$WORK/$name.json \
    gdb -q -batch -x "$ROOT/bench/walk/trace.py" --args "$bin" ask "$QUERY" > "$WORK/$name.gdb" 2>&1
  printf '%s: ' "$name"
  python3 "$ROOT/bench/walk/walk.py" "$WORK/$name.json" --within bin/brain/src/cmd/ask.rs
}
echo "walk of: brain ask \"$QUERY\" (lexical home of the golden sessions)"
walk "$BIN_A" A
if [ -n "${BIN_B:-}" ]; then walk "$BIN_B" B; fi
