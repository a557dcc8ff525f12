#!/usr/bin/env bash
# What a clean build costs (issue 59: `make demo` builds the workspace's binaries from nothing).
# Builds `cargo build --workspace --bins` — the build `make demo`, `make test` and `make install`
# share — into an empty target folder (the crates already downloaded are reused; nothing else),
# and prints the CPU time (user + system of cargo and every compiler it ran), the wall time, and
# the slowest units from cargo's --timings report. Never fails on speed.
#
#   bench/build.sh            one clean build (about 8 minutes of wall time on 2 cores)
#   ROUNDS=2 bench/build.sh   more rounds; medians printed
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-1}"
out="bench/out"; mkdir -p "$out"
cpu=(); wall=()
for r in $(seq 1 "$rounds"); do
  t="$(mktemp -d "${TMPDIR:-/tmp}/brain-build-bench.XXXXXX")"
  TIMEFORMAT="%U %S %R"
  { time CARGO_TARGET_DIR="$t" CARGO_INCREMENTAL=0 cargo build -q --workspace --bins --timings \
      >/dev/null 2>"$out/build-stderr.txt"; } 2>"$out/build-time.txt" \
    || { cat "$out/build-stderr.txt" >&2; rm -rf "$t"; exit 1; }
  read -r u s w < "$out/build-time.txt"
  cpu+=("$(python3 -c "print($u + $s)")"); wall+=("$w")
  report="$(ls "$t"/cargo-timings/cargo-timing-*.html | head -1)"
  cp "$report" "$out/build-timings.html"
  rm -rf "$t"
  echo "round $r: CPU ${cpu[-1]} s, wall $w s"
done
python3 - "$out/build-timings.html" "${cpu[*]}" "${wall[*]}" <<'PY'
import json, re, statistics, sys
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", open(sys.argv[1]).read(), re.S).group(1))
cpu = [float(x) for x in sys.argv[2].split()]
wall = [float(x) for x in sys.argv[3].split()]
print(f"clean build of the binaries: CPU median {statistics.median(cpu):.0f} s "
      f"({statistics.median(cpu) / 60:.1f} CPU-min), wall median {statistics.median(wall):.0f} s, "
      f"{len(units)} units")
print("slowest units (seconds of their own compile, last round):")
for u in sorted(units, key=lambda u: -u["duration"])[:15]:
    print(f"  {u['duration']:6.1f}  {u['name']} {u['version']} {u.get('target', '').strip()}")
PY
