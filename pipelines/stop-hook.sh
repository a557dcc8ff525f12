#!/usr/bin/env bash
# brain's fast clock: a Claude Code Stop hook that makes the finished turn's session lexically
# searchable at once (seed 000 §1, seed 004):
#
#   jsonl2md --hook --new --queue $BRAIN_HOME/pending_distill.txt | partition | lexindex
#
# Installed by `brain hook install --claude` as
#   BRAIN_HOME='…' BRAIN_BIN='…/brain' '…/stop-hook.sh'
# Claude Code passes its hook JSON on stdin ({"session_id", "transcript_path", "cwd", "hook_event_name",
# "stop_hook_active"}); `jsonl2md --hook` reads transcript_path from it. Without a payload (run by hand),
# or with one that names no transcript (another agent's stop hook, e.g. Cursor's), every new or changed
# session in every agent's default places is converted (`jsonl2md --new`: Cursor and OpenCode databases
# are fingerprinted per conversation, so only the conversations that changed are re-rendered).
#
# It never blocks the agent for long and never fails it: the pipeline runs under a timeout
# ($BRAIN_HOOK_TIMEOUT seconds, default 10), stage messages go to $BRAIN_HOME/logs/hook.log, one
# `hook` telemetry row records latency, exit code and documents indexed, and the script always exits 0
# (exit 2 would tell Claude Code to keep going). Typical cost: tens of milliseconds. After it, one
# working-memory turn passes (`brain wm tick`).
#
# After indexing, the finished session is read for its decisions, rejections and failed commands
# (`brain extract --no-model`: only new and changed sessions are read; BRAIN_HOOK_EXTRACT=0 leaves
# it to the slow clock).
#
# BRAIN_HOOK_EMBED=1 also embeds the new session when it needs at most BRAIN_HOOK_EMBED_MAX_CHUNKS
# (default 48) chunks computed (`vecindex --max-chunks`; see the pipeline below): its vectors are
# fresh at once instead of at the next `vecindex --all`.
#
# Stages are found the way `brain` finds them: beside brain, then <prefix>/libexec/brain, then PATH.
# brain itself: $BRAIN_BIN, else <prefix>/bin/brain beside an installed <prefix>/share/brain/, else
# target/{release,debug}/brain of the checkout holding this script, else PATH.

if [ "${1-}" = "--pipeline" ]; then
  # Inner run, under the timeout: $2 = 1 when stdin carries a hook payload.
  set -o pipefail
  docs=/dev/null
  [ -n "${VECINDEX-}${BRAIN_EXTRACT-}" ] && docs=$(mktemp "$BRAIN_HOME/logs/.hook-docs.XXXXXX")
  if [ "$2" = 1 ]; then
    "$JSONL2MD" --hook --new --queue "$QUEUE" --quiet
  else
    "$JSONL2MD" --new --queue "$QUEUE" --quiet </dev/null
  fi | "$PARTITION" --quiet | tee "$docs" | "$LEXINDEX" --json --quiet
  rc=$?
  # Opt-in (BRAIN_HOOK_EMBED=1): the new session's vectors too, when it is small — at most
  # BRAIN_HOOK_EMBED_MAX_CHUNKS chunks to compute (default 48: ~1 s at 12k tokens/s, ~2 s at 6k),
  # chunks embedded before not counted; a bigger one is left to the nightly `vecindex --all`, as is
  # everything when another vecindex holds the lock. Its report goes to the log, not the summary.
  if [ "$rc" = 0 ] && [ -n "${VECINDEX-}" ] && [ -s "$docs" ]; then
    "$VECINDEX" --max-chunks "${BRAIN_HOOK_EMBED_MAX_CHUNKS:-48}" --quiet <"$docs" >&2 || true
  fi
  # The finished session's decisions, rejections and failed commands, read without a model (only
  # the documents this run wrote are read): the next session's briefing has them.
  # BRAIN_HOOK_EXTRACT=0 leaves them to the slow clock; a held lock leaves them to the next run.
  if [ "$rc" = 0 ] && [ -n "${BRAIN_EXTRACT-}" ] && [ -s "$docs" ]; then
    "$BRAIN_EXTRACT" extract --no-model --quiet --docs "$docs" >/dev/null || true
  fi
  [ "$docs" != /dev/null ] && rm -f "$docs"
  exit "$rc"
fi

now_ms() {
  if [ -n "${EPOCHREALTIME-}" ]; then
    local t=${EPOCHREALTIME/[.,]/}
    echo $((10#$t / 1000))
  else
    echo $(($(date +%s) * 1000))
  fi
}
started=$(now_ms)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
brain=${BRAIN_BIN-}
if [ -z "$brain" ] || [ ! -x "$brain" ]; then
  brain=
  for c in "$here/../../bin/brain" "$here/../target/release/brain" "$here/../target/debug/brain" \
    "$(command -v brain 2>/dev/null)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then brain=$c; break; fi
  done
fi

stage() {
  local name=$1 dir
  if [ -n "$brain" ]; then
    dir=$(dirname "$brain")
    for c in "$dir/$name" "$dir/../libexec/brain/$name"; do
      if [ -x "$c" ]; then echo "$c"; return; fi
    done
  fi
  command -v "$name" 2>/dev/null
}

# Every file this script or its stages create is private from its first byte (the log below is
# opened by the shell, before any brain process sets its own umask).
umask 077
export BRAIN_HOME=${BRAIN_HOME:-$HOME/.brain}
export BRAIN_SURFACE=hook
export QUEUE=${BRAIN_QUEUE:-$BRAIN_HOME/pending_distill.txt}
# A hook never makes a home (`brain import` or `brain hook install` does): without one, say so in
# the agent's log and let the session go on.
if [ ! -d "$BRAIN_HOME" ]; then
  echo "stop-hook: $(date -u +%FT%TZ): no brain home at $BRAIN_HOME; nothing indexed (\`brain import\` makes one)" >&2
  exit 0
fi
log=$BRAIN_HOME/logs/hook.log
mkdir -p "$BRAIN_HOME/logs" 2>/dev/null
exec 2>>"$log"

JSONL2MD=$(stage jsonl2md) PARTITION=$(stage partition) LEXINDEX=$(stage lexindex)
VECINDEX=
[ "${BRAIN_HOOK_EMBED-}" = 1 ] && VECINDEX=$(stage vecindex)
BRAIN_EXTRACT=
[ "${BRAIN_HOOK_EXTRACT-1}" != 0 ] && BRAIN_EXTRACT=$brain
export JSONL2MD PARTITION LEXINDEX VECINDEX BRAIN_EXTRACT
if [ -z "$JSONL2MD" ] || [ -z "$PARTITION" ] || [ -z "$LEXINDEX" ]; then
  echo "stop-hook: $(date -u +%FT%TZ): stage binaries not found (brain: ${brain:-none}); run \`brain doctor\`" >&2
  exit 0
fi

payload=0
if [ ! -t 0 ]; then
  input=$(cat)
  case "$input" in *'"transcript_path"'*) payload=1 ;; esac
fi

limit=${BRAIN_HOOK_TIMEOUT:-10}
if command -v timeout >/dev/null 2>&1; then
  # GNU timeout signals the whole process group: every stage of the pipeline stops.
  summary=$(timeout -k 2 "$limit" bash "${BASH_SOURCE[0]}" --pipeline "$payload" <<<"${input-}")
  rc=$?
else
  # No timeout(1) (stock macOS): a watchdog kills the inner shell and its process group.
  set -m
  bash "${BASH_SOURCE[0]}" --pipeline "$payload" <<<"${input-}" >"$BRAIN_HOME/logs/.hook.out" &
  pid=$!
  set +m
  ( sleep "$limit" && kill -TERM -- "-$pid" ) >/dev/null 2>&1 &
  watchdog=$!
  wait "$pid"
  rc=$?
  kill "$watchdog" 2>/dev/null
  summary=$(cat "$BRAIN_HOME/logs/.hook.out" 2>/dev/null)
fi
case $rc in 124 | 137 | 143) echo "stop-hook: $(date -u +%FT%TZ): timed out after ${limit}s" >&2 ;; esac

added=$(printf '%s' "$summary" | sed -n 's/.*"added":\([0-9]*\).*/\1/p')
updated=$(printf '%s' "$summary" | sed -n 's/.*"updated":\([0-9]*\).*/\1/p')
elapsed=$(($(now_ms) - started))
if [ -n "$brain" ]; then
  # A turn passed: working-memory notes lose one (brain wm; pinned ones never expire).
  "$brain" wm tick --quiet || true
  "$brain" hook log --latency-ms "$elapsed" --exit-code "$rc" --docs "$((${added:-0} + ${updated:-0}))" || true
fi
exit 0
