#!/usr/bin/env bash
# Run a command with a fresh local team engine (scripts/engine.sh: 2 Solr nodes and ZooKeeper) up,
# then stop it, whatever the command did: what `make test` wraps `cargo test` in.
#
#   scripts/with-engine.sh COMMAND...
#
# The command sees BRAIN_TEST_ENGINE (the cluster's URL), and ENGINE_DIR / ENGINE_PORT (so a fault
# test can kill and restart a node with scripts/engine.sh). The test cluster lives apart from the
# one `make engine-up` starts (its own folder, ports 18983-18984 and 19983). When the engine cannot
# start (no Java or Maven), the engine tests skip — unless BRAIN_REQUIRE_ENGINE=1 (CI), which makes
# that a failure.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
export ENGINE_DIR="${ENGINE_TEST_DIR:-$target/engine/test}"
export ENGINE_PORT="${ENGINE_TEST_PORT:-18983}"
engine="$root/scripts/engine.sh"
bash "$engine" wipe >/dev/null 2>&1
trap 'bash "$engine" down >/dev/null 2>&1' EXIT
if url=$(bash "$engine" up | tail -n 1) && [ -n "$url" ]; then
  export BRAIN_TEST_ENGINE="$url"
  echo "with-engine: team engine up at $url" >&2
elif [ "${BRAIN_REQUIRE_ENGINE:-}" = 1 ]; then
  echo "with-engine: the team engine did not start and BRAIN_REQUIRE_ENGINE=1" >&2
  exit 1
else
  echo "with-engine: the team engine did not start: its tests will skip (see scripts/engine.sh)" >&2
fi
"$@"
