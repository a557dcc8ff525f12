#!/usr/bin/env bash
# Runs every benchmark script in bench/ (release binaries must be built: `make bench` does it).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for b in bench/*.sh bench/*/run.sh; do
  [ "$b" = bench/run.sh ] && continue
  case "$b" in bench/setup-*|bench/lib.sh) continue;; esac
  echo "=== $b"
  bash "$b" || { echo "bench: $b failed" >&2; status=1; }
done
exit $status
