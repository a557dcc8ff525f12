#!/usr/bin/env bash
# `make demo`: the main job end to end on bundled sample data, in a temporary home.
#   sample agent sessions → jsonl2md → partition → lexindex
#   a sample browser History → chrome2md → partition → lexindex
#   questions → brain ask (rank + fmt in one process), then brain get on a hit
# The sample data are the hand-written golden inputs under golden/ (our own, not third-party corpora).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/${CARGO_TARGET_DIR:-target}/release}
export PATH="$BIN:$PATH"
export BRAIN_HOME
BRAIN_HOME=$(mktemp -d "${TMPDIR:-/tmp}/brain-demo.XXXXXX")
trap 'rm -rf "$BRAIN_HOME"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

say "1. Agent sessions → markdown → collections → lexical index"
echo "\$ jsonl2md golden/jsonl2md/*/ | partition | lexindex" >&2
sessions=()
for d in "$ROOT"/golden/jsonl2md/*/; do
  case "$d" in */markdown-out-dir/) continue;; esac   # same sessions again, for the markdown golden
  sessions+=("$d")
done
jsonl2md -q "${sessions[@]}" | partition | lexindex

say "2. Browser history (a sample History built from golden/chrome2md/modern.sql)"
python3 - "$ROOT/golden/chrome2md/modern.sql" "$BRAIN_HOME/sample/History" <<'PY'
import os, sqlite3, sys
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
sqlite3.connect(sys.argv[2]).executescript(open(sys.argv[1]).read())
PY
echo "\$ chrome2md --history sample/History --tz UTC | partition | lexindex" >&2
chrome2md --history "$BRAIN_HOME/sample/History" --tz UTC --no-state | partition | lexindex

say "3. What is in the corpus"
find "$BRAIN_HOME/corpus" -name '*.md' | sed "s|$BRAIN_HOME/||" | sort >&2

ask() {
  say "brain ask \"$1\" ${*:2}"
  brain ask "$@" || true
}
ask "why did cargo test fail with unresolved import memchr"
ask "JWT token rejected after refresh"
ask "top-rank bonus for RRF fusion"
ask "WebKit timestamp DST" -n 3
ask "permission denied writing lead_gemini.txt" --json
ask "tantivy" -c chrome-history

say "4. A document by its #docid, lines 1-25"
docid=$(brain ask "unresolved import memchr" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["hits"][0]["docid"])')
brain get "$docid:1:25"
say "done (the temporary home $BRAIN_HOME is removed on exit)"
