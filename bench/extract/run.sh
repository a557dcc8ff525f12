#!/usr/bin/env bash
# Decisions from every session (issue 53), on real history: a home of every agent's sessions in
# ../shared/corpora, no LLM, `brain extract`; the records by type, precision and recall against the
# hand-judged sample (bench/extract/judged.tsv: every record the extraction prints, right or wrong,
# and what a reader finds in the same conversations that it does not), the supersessions (each
# within one subject), and the time of a first run and of a second one (nothing new to read).
#
#   bench/extract/run.sh     # needs release binaries: cargo build --release --workspace --bins
#
# Prints figures; never fails on one (benchmarks do not gate CI). tests/tests/extract_real.rs
# asserts the same sample (every record judged, precision >= 0.8).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
. bench/lib.sh
need_bins brain jsonl2md partition lexindex
need_tools python3
CORPORA=${CORPORA:-$ROOT/../shared/corpora}
[ -d "$CORPORA" ] || { echo "extract: NOT RUN: $CORPORA missing"; exit 0; }
export BRAIN_HOME=$(mktemp -d)/home BRAIN_TELEMETRY=off
trap 'rm -rf "$(dirname "$BRAIN_HOME")"' EXIT
unset BRAIN_DISTILL_COMMAND
"$BIN/jsonl2md" -q "$CORPORA"/{claude-code,codex,gemini,cursor,opencode,aider} | "$BIN/partition" -q | "$BIN/lexindex" -q >/dev/null
out=$(dirname "$BRAIN_HOME")/extract.ndjson
s=${EPOCHREALTIME/./}; "$BIN/brain" extract -q >"$out"; e=${EPOCHREALTIME/./}
s2=${EPOCHREALTIME/./}; "$BIN/brain" extract -q >/dev/null; e2=${EPOCHREALTIME/./}
python3 - "$out" bench/extract/judged.tsv "$(( (e - s) / 1000 ))" "$(( (e2 - s2) / 1000 ))" <<'PY'
import collections, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
judged, missed = {}, []
for line in open(sys.argv[2]):
    if line.startswith("#") or line.startswith("source\t"):
        continue
    f = line.rstrip("\n").split("\t")
    if f[3] == "missed":
        missed.append(f)
    else:
        judged[(f[0], f[1], f[2])] = f[3]
by_type = collections.Counter(r["type"] for r in recs)
by_decision = collections.Counter(r["decision"] for r in recs)
verdict = [judged.get((r["source"].replace("brain://", ""), r["type"], r["key"]), "unjudged") for r in recs]
right, wrong, unjudged = verdict.count("right"), verdict.count("wrong"), verdict.count("unjudged")
said = [(r, v) for r, v in zip(recs, verdict) if r["type"] != "failed"
        and " was declined by the user" not in r["statement"] and " was refused" not in r["statement"]]
found = sum(1 for _, v in said if v == "right")
print(f"extract: {len(recs)} records on the real corpora, no LLM: " + ", ".join(f"{t} {n}" for t, n in sorted(by_type.items())))
print(f"extract: decisions {dict(sorted(by_decision.items()))}")
print(f"extract: precision {right / max(1, right + wrong):.3f} ({right} right, {wrong} wrong, {unjudged} unjudged)")
print(f"extract: recall of what was said {found / max(1, found + len(missed)):.3f} ({found} found, {len(missed)} missed)")
for r in recs:
    if r["decision"] == "SUPERSEDE":
        print(f"extract: supersession {r['key']}: {r['statement'][:70]!r} replaces {len(r.get('against', []))} record(s)")
print(f"extract: first run {sys.argv[3]} ms, second run (nothing new) {sys.argv[4]} ms")
PY

# What the Stop hook adds: `brain extract --no-model` on a home of 10,000 generated sessions (the
# first run reads every one; then nothing new; then one new session), CPU and wall, median of 5.
N=${EXTRACT_SESSIONS:-10000}
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
CORPUS=$BENCH_DIR/corpus-$N-$(( N / 50 ))
[ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$N" --mb $(( N / 50 )) >/dev/null || exit 0
export BRAIN_HOME=$(dirname "$BRAIN_HOME")/gen
mkdir -p "$BRAIN_HOME/distilled"
printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\n    role: sessions\n  - name: distilled\n    path: %s\n    role: distilled\npartition:\n  default: bench\n' \
  "$CORPUS" "$BRAIN_HOME/distilled" > "$BRAIN_HOME/brain.yaml"
"$BIN/lexindex" --all -q >/dev/null
TF=$(mktemp)
# CPU_MS: user + system milliseconds of this shell's waited-for children (bash's `times`, read in
# this same shell: a command substitution would count its own children).
cpu() { times >"$TF"; local l u; CPU_MS=0; { read -r _; read -r l; } <"$TF"; for u in $l; do [[ $u =~ ^([0-9]+)m([0-9]+)\.([0-9]+)s$ ]] && CPU_MS=$(( CPU_MS + 10#${BASH_REMATCH[1]} * 60000 + 10#${BASH_REMATCH[2]} * 1000 + 10#${BASH_REMATCH[3]} )); done; }
one() { local c0 s e; cpu; c0=$CPU_MS; s=${EPOCHREALTIME/./}; "$BIN/brain" extract --no-model -q >/dev/null; e=${EPOCHREALTIME/./}; cpu; echo "$(( (e - s) / 1000 )) ms wall, $(( CPU_MS - c0 )) ms CPU"; }
echo "extract: $N generated sessions, first run: $(one)"
for i in 1 2 3 4 5; do one; done | sort -n | sed -n 3p | sed "s/^/extract: nothing new (median of 5): /"
for i in 1 2 3 4 5; do
  cp "$(find "$CORPUS" -name '*.md' | head -1)" "$CORPUS/new-$i.md"
  sed -i "s/^title: .*/title: new session $i/" "$CORPUS/new-$i.md"
  one
done | sort -n | sed -n 3p | sed "s/^/extract: one new session (median of 5): /"
rm -f "$CORPUS"/new-*.md
