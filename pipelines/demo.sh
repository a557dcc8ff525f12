#!/usr/bin/env bash
# `make demo`: the main job end to end on bundled sample data, in a temporary home.
#   sample agent sessions → jsonl2md → partition → lexindex
#   a sample browser History → chrome2md → partition → lexindex
#   questions → brain ask (rank + fmt in one process), then brain get on the best hit, at its line
# The sample data are the hand-written golden inputs under golden/ (our own, not third-party corpora).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/${CARGO_TARGET_DIR:-target}/debug}
export PATH="$BIN:$PATH"
export BRAIN_HOME
BRAIN_HOME=$(mktemp -d "${TMPDIR:-/tmp}/brain-demo.XXXXXX")
trap 'rm -rf "$BRAIN_HOME"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
# The stages' notes about the sample data (a visit without its URL row, a session whose file name
# another source holds) are for someone debugging them: `make demo VERBOSE=1` shows them.
Q=-q
[ -n "${VERBOSE:-}" ] && Q=""


say "1. Agent sessions → markdown → collections → lexical index"
echo "\$ jsonl2md golden/jsonl2md/*/ | partition | lexindex" >&2
sessions=()
for d in "$ROOT"/golden/jsonl2md/*/; do
  case "$d" in */markdown-out-dir/) continue;; esac   # same sessions again, for the markdown golden
  sessions+=("$d")
done
jsonl2md -q "${sessions[@]}" | partition $Q | lexindex

say "2. Browser history (a sample History built from golden/chrome2md/modern.sql)"
python3 - "$ROOT/golden/chrome2md/modern.sql" "$BRAIN_HOME/sample/History" <<'PY'
import os, sqlite3, sys
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
sqlite3.connect(sys.argv[2]).executescript(open(sys.argv[1]).read())
PY
echo "\$ chrome2md --history sample/History --tz UTC | partition | lexindex" >&2
chrome2md $Q --history "$BRAIN_HOME/sample/History" --tz UTC --no-state | partition $Q | lexindex

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

say "4. The best hit, read where it matched: brain get #docid:LINE:COUNT"
read -r docid line < <(brain ask "unresolved import memchr" --json | python3 -c 'import json,sys; h=json.load(sys.stdin)["hits"][0]; print(h["docid"], max(1, h["line"] - 2))')
echo "\$ brain get $docid:$line:12" >&2
brain get "$docid:$line:12"
say "done (the temporary home $BRAIN_HOME is removed on exit)"
