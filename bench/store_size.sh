#!/usr/bin/env bash
# The vector store's bytes per 1,000 documents (issue 55's target: at most 20 MB for sessions of
# 20 KB): bench/gen_corpus.py sessions (FILES of them, MB megabytes in all), indexed, a store of
# synthetic rows written by examples/synthetic_store (every chunk a real chunk, its vector random:
# the bytes are the same whatever the vectors say). Prints the store's size per 1,000 documents
# and its files; from schema 4 on also the texts' size uncompressed (g<N>.tblk's last pair), so
# the schema-3 size of the same rows reads off the same run.
#
#   bench/store_size.sh                  # 1,000 sessions of 20 KB, release binaries
#   FILES=10000 MB=200 bench/store_size.sh
#   PROFILE=dev bench/store_size.sh      # the debug build (`make build`): sizes do not depend on it
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
PROFILE=${PROFILE:-release}
case "$PROFILE" in dev) BIN=$TARGET/debug ;; *) BIN=$TARGET/$PROFILE ;; esac
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-1000}
MB=${MB:-20}
. bench/lib.sh
need_bins lexindex
need_tools python3
cargo build --profile "$PROFILE" -q -p brain-vec --example synthetic_store || exit 1
corpus=$BENCH_DIR/scale-zipf-$FILES-$MB
[ -d "$corpus" ] || python3 bench/gen_corpus.py "$corpus" --files "$FILES" --mb "$MB" --vocab zipf >&2
export BRAIN_HOME=$BENCH_DIR/store-size-home-$FILES-$MB BRAIN_TELEMETRY=off
rm -rf "$BRAIN_HOME"
sessions_home "$corpus"
"$BIN/lexindex" --all -q
"$BIN/examples/synthetic_store" "$BRAIN_HOME" >/dev/null
python3 - "$BRAIN_HOME/index/vec" "$FILES" <<'PY'
import glob, json, os, struct, sys
d, files = sys.argv[1], int(sys.argv[2])
m = json.load(open(os.path.join(d, "manifest.json")))
sizes = {os.path.basename(f): os.path.getsize(f) for f in glob.glob(os.path.join(d, "g*"))}
total = sum(sizes.values()) + os.path.getsize(os.path.join(d, "manifest.json"))
per = lambda b: b / 1e6 / files * 1000
print(f"store schema {m['schema']}: {m['docs']} documents, {m['chunks']} rows, {per(total):.2f} MB per 1,000 documents")
for name, size in sorted(sizes.items()):
    print(f"  {name:12} {size / 1e6:9.2f} MB")
tblk = [f for f in sizes if f.endswith(".tblk")]
if tblk:
    stored, raw = struct.unpack("<QQ", open(os.path.join(d, tblk[0]), "rb").read()[-16:])
    text_files = sum(v for k, v in sizes.items() if k.endswith((".text", ".tblk", ".tdict")))
    print(f"  texts: {raw / 1e6:.2f} MB as written, {stored / 1e6:.2f} MB stored ({raw / stored:.2f}x); "
          f"the same rows with the texts uncompressed (schema 3): {per(total - text_files + raw):.2f} MB per 1,000 documents")
PY
