#!/usr/bin/env bash
# Distillation runner benchmark: what `brain distill` itself costs per session (spawn `sh -c`, pipe the
# prompt, read the answer, validate, write, dequeue) with stand-in commands instead of an LLM, and
# whether --jobs N really keeps N commands busy.
#
#   bench/distill.sh          # uses $BIN/brain (default: $CARGO_TARGET_DIR or target, release, else debug)
#
# Env: N (sessions, default 200), BENCH_DIR (default /tmp/brain-bench-distill), CARGO_TARGET_DIR.
# Prints figures; never fails on one (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release; [ -x "$BIN/brain" ] || BIN=$TARGET/debug
[ -x "$BIN/brain" ] || { echo "bench/distill.sh: no brain binary under $TARGET: cargo build -p brain" >&2; exit 1; }
N=${N:-200}
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench-distill}
GOOD="sh $ROOT/tests/fixtures/distill/good.sh"
now_ms() { date +%s%3N; }

# make_home DIR COUNT: COUNT session files in DIR/corpus/brain and a queue naming them.
make_home() {
  rm -rf "$1"; mkdir -p "$1/corpus/brain/2026/04"
  python3 - "$1" "$2" <<'PY'
import sys
home, n = sys.argv[1], int(sys.argv[2])
with open(f"{home}/pending_distill.txt", "w") as q:
    for i in range(n):
        sid = f"bench-{i:05d}"
        body = "".join(f"**User**: question {t} about module {i}\n\n**Assistant**: {'answer text ' * 30}\n\n" for t in range(8))
        with open(f"{home}/corpus/brain/2026/04/{sid}.md", "w") as f:
            f.write(f"---\nid: brain/2026/04/{sid}.md\ntitle: session {i}\ndate: 2026-04-02T10:00:00Z\ncollection: brain\n"
                    f"path: 2026/04/{sid}.md\nsession_id: {sid}\nproject: ~/p\nsource:\n  type: session\n  file: ~/x.jsonl\n---\n"
                    f"## Conversation\n\n{body}")
        q.write(sid + "\n")
PY
}

echo "brain: $BIN/brain; $N sessions"
H=$BENCH_DIR/home
# 1. Baselines: the same number of `sh -c` stand-in runs from a shell loop (process cost alone).
make_home "$H" 1
PROMPT=$(find "$H/corpus/brain" -name '*.md' | head -n 1)
s=$(now_ms); for _ in $(seq "$N"); do sh -c cat <"$PROMPT" >/dev/null; done; base_cat=$(( $(now_ms) - s ))
s=$(now_ms); for _ in $(seq "$N"); do sh -c "$GOOD" <"$PROMPT" >/dev/null; done; base=$(( $(now_ms) - s ))
# 2. brain distill with a `cat` stand-in: every answer is invalid, so each session runs the command twice
#    (an invalid answer is asked for once more): spawn + pipe + validate, twice, against one loop run.
make_home "$H" "$N"
s=$(now_ms); BRAIN_HOME=$H "$BIN/brain" distill --command cat -q >/dev/null 2>&1; cat_ms=$(( $(now_ms) - s ))
# 3. brain distill with the valid stand-in: the whole path, artifacts written (fsync) and indexed.
make_home "$H" "$N"
s=$(now_ms); BRAIN_HOME=$H "$BIN/brain" distill --command "$GOOD" -q >/dev/null 2>&1; good_ms=$(( $(now_ms) - s ))
written=$(find "$H/corpus/distilled" -name '*.md' | wc -l)
awk -v n="$N" -v b="$base" -v bc="$base_cat" -v c="$cat_ms" -v g="$good_ms" -v w="$written" 'BEGIN {
  printf "cat alone (shell loop):             %7.2f ms/session\n", bc / n
  printf "brain distill, cat stand-in (2 runs/session, invalid answers): %7.2f ms/session (over two loop runs %+.2f ms)\n", c / n, (c - 2 * bc) / n
  printf "valid stand-in alone (shell loop):  %7.2f ms/session\n", b / n
  printf "brain distill, valid stand-in:      %7.2f ms/session (%d artifacts written and indexed; overhead %+.2f ms)\n", g / n, w, (g - b) / n
}'
# 4. Concurrency: 8 sessions whose command sleeps 1 s.
for j in 1 8; do
  make_home "$H" 8
  s=$(now_ms); BRAIN_HOME=$H "$BIN/brain" distill --command 'cat >/dev/null; sleep 1; exit 1' --jobs "$j" -q >/dev/null 2>&1
  echo "8 x 'sleep 1' with --jobs $j: $(( $(now_ms) - s )) ms"
done
rm -rf "$BENCH_DIR"
