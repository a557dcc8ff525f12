#!/usr/bin/env bash
# The local team engine: a real SolrCloud cluster of two nodes and one ZooKeeper, each its own JVM,
# built from Maven Central by engine/pom.xml (docs/team.md says why Solr and which versions).
#
#   scripts/engine.sh up            build if needed, start, wait until both nodes are live;
#                                   the last line printed is the cluster's URL
#   scripts/engine.sh down          stop every process (the data stays in $ENGINE_DIR)
#   scripts/engine.sh status        one line per process: running or not
#   scripts/engine.sh url           the URL (exit 1 when the cluster is not up)
#   scripts/engine.sh kill-node N   SIGKILL Solr node N (1 or 2): the fault tests' real crash
#   scripts/engine.sh start-node N  start node N again and wait until it is live
#   scripts/engine.sh wipe          down, then delete $ENGINE_DIR
#
# Env: ENGINE_DIR (default target/engine/run), ENGINE_PORT (default 8983: node 1 on it, node 2 on
# the next port, ZooKeeper 1000 above), ENGINE_HEAP (per node, default 512m), JAVA (default java).
# Listens on 127.0.0.1 only. Idempotent: `up` on a running cluster prints its URL again.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
build="$target/engine"
dir="${ENGINE_DIR:-$build/run}"
port="${ENGINE_PORT:-8983}"
heap="${ENGINE_HEAP:-512m}"
java="${JAVA:-java}"
zk_port=$((port + 1000))
url="http://127.0.0.1:$port/solr"

say() { echo "engine: $*" >&2; }
alive() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

compile() {
  if [ ! -f "$build/classes/dev/brain/engine/Node.class" ] || [ ! -d "$build/lib" ] ||
    [ "$root/engine/pom.xml" -nt "$build/classes/dev/brain/engine/Node.class" ] ||
    [ "$root/engine/src/main/java/dev/brain/engine/Node.java" -nt "$build/classes/dev/brain/engine/Node.class" ]; then
    say "building the launcher (Maven Central: Solr and its dependencies, ~85 MB the first time)"
    mvn -q -B -Dstyle.color=never -f "$root/engine/pom.xml" -Dengine.target="$build" compile >&2
  fi
}

launch() { # name, then Node's arguments
  local name=$1; shift
  mkdir -p "$dir"
  # setsid: the process outlives this script and a Ctrl-C in the shell that ran `make engine-up`.
  setsid "$java" -Xmx"$heap" -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
    -Dzookeeper.admin.enableServer=false -Dsolr.log.dir="$dir/logs" -Dhost=127.0.0.1 \
    -Dsolr.jetty.host=127.0.0.1 -Djetty.host=127.0.0.1 \
    -cp "$build/classes:$build/lib/*" dev.brain.engine.Node "$@" \
    >"$dir/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

wait_for() { # what, seconds, command...
  local what=$1 secs=$2; shift 2
  local end=$((SECONDS + secs))
  until "$@"; do
    if [ $SECONDS -ge $end ]; then
      say "$what did not come up in ${secs}s; its log is in $dir"
      return 1
    fi
    sleep 0.5
  done
}

live_nodes() {
  curl -s --max-time 5 "$url/admin/collections?action=CLUSTERSTATUS&wt=json" 2>/dev/null |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["cluster"]["live_nodes"]))' 2>/dev/null || echo 0
}
all_live() { [ "$(live_nodes)" -ge 2 ]; }

start_node() { # N
  local n=$1 p=$((port + $1 - 1))
  alive "node$n" && return 0
  if port_open "$p"; then say "port $p is taken by another program (ENGINE_PORT picks others)"; return 1; fi
  launch "node$n" solr "$p" "$dir/node$n" "127.0.0.1:$zk_port"
  wait_for "Solr node $n" 180 grep -q '^ready ' "$dir/node$n.log"
}

up() {
  command -v "$java" >/dev/null || { say "no java on PATH (Java 17 or newer; JAVA names another)"; exit 65; }
  command -v mvn >/dev/null || { say "no mvn on PATH (Maven 3.8 or newer)"; exit 65; }
  compile
  if ! alive zk; then
    if port_open "$zk_port"; then say "port $zk_port is taken by another program (ENGINE_PORT picks others)"; exit 1; fi
    launch zk zk "$zk_port" "$dir/zk"
    wait_for ZooKeeper 60 port_open "$zk_port"
  fi
  start_node 1 & local a=$!
  start_node 2 & local b=$!
  wait $a && wait $b
  wait_for "the cluster (2 live nodes)" 120 all_live
  say "up: 2 Solr nodes and ZooKeeper on 127.0.0.1 (logs and data in $dir)"
  echo "$url"
}

stop() { # name
  alive "$1" || { rm -f "$dir/$1.pid"; return 0; }
  local pid; pid=$(cat "$dir/$1.pid")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$dir/$1.pid"
}

case "${1:-}" in
  up) up ;;
  down) stop node2 & stop node1 & wait; stop zk; say "down" ;;
  status) for p in zk node1 node2; do if alive $p; then echo "$p running (pid $(cat "$dir/$p.pid"))"; else echo "$p stopped"; fi; done ;;
  url) alive node1 || alive node2 || exit 1; echo "$url" ;;
  kill-node) n=${2:?kill-node N}; alive "node$n" && kill -KILL "$(cat "$dir/node$n.pid")"; rm -f "$dir/node$n.pid" ;;
  start-node) n=${2:?start-node N}; compile; start_node "$n"; wait_for "the cluster (2 live nodes)" 120 all_live ;;
  wipe) "$0" down; rm -rf "$dir" ;;
  *) sed -n '2,17p' "$0" >&2; exit 64 ;;
esac
