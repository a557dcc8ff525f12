#!/usr/bin/env bash
# The stop hook's path side by side: `partition | lexindex` of one new doc into a 2,000-doc index,
# two builds alternated 30 times (OLD=…/release NEW=…/release bench/hook_side_by_side.sh). Prints
# medians and p90; never fails on a figure.
set -u
NEW=${NEW:?NEW=<target>/release of the build to measure}; OLD=${OLD:?OLD=<target>/release of the build to compare with}
B=${BENCH_DIR:-/tmp/brain-bench}/hook-side-by-side; CORPUS=$B/corpus; mkdir -p $B
[ -d $CORPUS ] || python3 "$(dirname "$0")/gen_corpus.py" $CORPUS --files 2000 --mb 40 >/dev/null
for v in old new; do
  H=$B/home-$v; rm -rf $H; mkdir -p $H
  cat > $H/brain.yaml <<Y
version: 1
collections:
  - name: brain
    path: $CORPUS
    role: sessions
  - name: hook
    path: $H/hook
partition:
  default: hook
Y
  bin=$([ $v = old ] && echo $OLD || echo $NEW)
  BRAIN_HOME=$H $bin/lexindex --all -q
done
declare -A T; T[old]=""; T[new]=""
for i in $(seq 1 30); do
  for v in old new; do
    bin=$([ $v = old ] && echo $OLD || echo $NEW)
    H=$B/home-$v
    rec="{\"schema\":1,\"kind\":\"doc\",\"id\":\"hook-$i\",\"collection\":null,\"path\":\"hook-$i.md\",\"title\":\"Hook session $i\",\"date\":\"2026-04-02T10:00:00Z\",\"source\":{\"type\":\"session\",\"agent\":\"claude\",\"file\":\"~/x$i.jsonl\"},\"meta\":{\"project\":\"brain\"},\"body\":\"## Conversation\\n\\n**User**: why does parse_config fail in src/config.rs?\\n\\n**Assistant**: run cargo test --workspace.\\n\"}"
    s=${EPOCHREALTIME/./}; printf '%s\n' "$rec" | BRAIN_HOME=$H $bin/partition -q | BRAIN_HOME=$H $bin/lexindex -q; e=${EPOCHREALTIME/./}
    T[$v]+="$(( (e - s) / 100 )) "
  done
done
for v in old new; do
  echo "$v: $(echo ${T[$v]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {printf "median %.1f ms, p90 %.1f ms over %d runs", a[int((NR+1)/2)]/10, a[int(NR*0.9)]/10, NR}')"
done
