#!/usr/bin/env bash
# Builds and runs Weaviate on loopback for DocMind's Weaviate store.
#
#   scripts/weaviate.sh start [--nodes N] [--collection NAME]
#       builds weaviate-server at $WEAVIATE_VERSION (once, into the cache
#       folder; about 5 minutes on two cores), starts one node or an N-node
#       cluster (RAFT, gossip and data ports on 127.0.0.1, one data folder
#       per node, anonymous access: loopback only), waits until every node
#       is ready and prints the --store URL on its last line:
#       weaviate://127.0.0.1:PORT/COLLECTION
#   scripts/weaviate.sh stop
#       ends the nodes it started, by pid (SIGTERM, then SIGKILL after 20 s)
#   scripts/weaviate.sh build
#       only builds the server
#   scripts/weaviate.sh node I [start|kill]
#       restarts node I of the running cluster with the same settings, or
#       kills it with SIGKILL (for failure tests)
#
# Environment: WEAVIATE_VERSION (v1.35.2), DOCMIND_WEAVIATE_HOME (the cache
# folder, default ${XDG_CACHE_HOME:-$HOME/.cache}/docmind/weaviate-VERSION),
# DOCMIND_WEAVIATE_PORT (the first node's REST port, 18080; node i uses
# PORT+10*(i-1) and the nine ports after it), DOCMIND_WEAVIATE_FRESH=1 (start
# with empty data folders). Logs: $HOME_DIR/run/nodeI.log.
set -euo pipefail

version=${WEAVIATE_VERSION:-v1.35.2}
home=${DOCMIND_WEAVIATE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/docmind/weaviate-$version}
bin="$home/bin/weaviate-server"
run="$home/run"
base=${DOCMIND_WEAVIATE_PORT:-18080}

die() { echo "weaviate.sh: $*" >&2; exit 1; }

build() {
  if [ -x "$bin" ]; then return 0; fi
  mkdir -p "$home/bin"
  echo "weaviate.sh: building weaviate-server $version into $home/bin (about 5 minutes on two cores)" >&2
  # built outside any module, so that the repository's go.mod is not consulted
  (cd "$home" && GOBIN="$home/bin" GOFLAGS=-mod=mod CGO_ENABLED=0 go install "github.com/weaviate/weaviate/cmd/weaviate-server@$version") >&2 \
    || die "building weaviate-server $version failed"
}

port() { echo $(( base + 10 * ($1 - 1) + $2 )); } # node, offset

start_node() { # node index, node count
  local i=$1 n=$2 join="" raft_join="" j
  for j in $(seq 1 "$n"); do raft_join+="${raft_join:+,}node$j:$(port "$j" 3)"; done
  if [ "$i" -gt 1 ]; then join="127.0.0.1:$(port 1 1)"; fi
  mkdir -p "$run/data/node$i"
  (
    export PERSISTENCE_DATA_PATH="$run/data/node$i"
    export AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true
    export DEFAULT_VECTORIZER_MODULE=none
    export ENABLE_MODULES=""
    # v1.35.2's BlockMax WAND keyword search drops the best matches of
    # queries of five terms or more; the exhaustive WAND ranks as BM25
    # should (store/weaviate TestLongQueryFindsTheFullMatch)
    export USE_INVERTED_SEARCHABLE=${USE_INVERTED_SEARCHABLE:-false}
    export DISABLE_TELEMETRY=true
    export QUERY_DEFAULTS_LIMIT=25
    export LOG_LEVEL=${WEAVIATE_LOG_LEVEL:-warning}
    export CLUSTER_HOSTNAME="node$i"
    export CLUSTER_IN_LOCALHOST=true
    export CLUSTER_ADVERTISE_ADDR=127.0.0.1
    export CLUSTER_GOSSIP_BIND_PORT=$(port "$i" 1)
    export CLUSTER_DATA_BIND_PORT=$(port "$i" 2)
    export RAFT_PORT=$(port "$i" 3)
    export RAFT_INTERNAL_RPC_PORT=$(port "$i" 4)
    export GRPC_PORT=$(port "$i" 5)
    export GO_PROFILING_PORT=$(port "$i" 6)
    export PROMETHEUS_MONITORING_PORT=$(port "$i" 7)
    export RAFT_JOIN="$raft_join"
    export RAFT_BOOTSTRAP_EXPECT="$n"
    if [ -n "$join" ]; then export CLUSTER_JOIN="$join"; else unset CLUSTER_JOIN; fi
    exec setsid "$bin" --host 127.0.0.1 --port "$(port "$i" 0)" --scheme http \
      --read-timeout=600s --write-timeout=600s >>"$run/node$i.log" 2>&1 </dev/null
  ) &
  echo $! >"$run/node$i.pid"
}

wait_ready() { # node index, seconds
  local i=$1 deadline=$((SECONDS + $2)) url
  url="http://127.0.0.1:$(port "$i" 0)/v1/.well-known/ready"
  until curl -fs -o /dev/null --max-time 2 "$url"; do
    if ! kill -0 "$(cat "$run/node$i.pid")" 2>/dev/null; then
      tail -n 20 "$run/node$i.log" >&2
      die "node $i exited before it was ready (log: $run/node$i.log)"
    fi
    if (( SECONDS >= deadline )); then
      tail -n 20 "$run/node$i.log" >&2
      die "node $i is not ready after $2 s (log: $run/node$i.log)"
    fi
    sleep 0.5
  done
}

wait_port() { # node index, port, seconds: until the node listens on the port
  local i=$1 p=$2 deadline=$((SECONDS + $3))
  until (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
    kill -0 "$(cat "$run/node$i.pid")" 2>/dev/null || die "node $i exited before it listened on $p (log: $run/node$i.log)"
    (( SECONDS < deadline )) || die "node $i does not listen on $p after $3 s (log: $run/node$i.log)"
    sleep 0.2
  done
}

stop() {
  local f pid any=0
  shopt -s nullglob
  for f in "$run"/node*.pid; do
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; any=1; fi
  done
  for f in "$run"/node*.pid; do
    pid=$(cat "$f")
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    rm -f "$f"
  done
  [ "$any" = 1 ] && echo "weaviate.sh: stopped" >&2 || echo "weaviate.sh: nothing running" >&2
}

cmd=${1:-}; shift || true
case "$cmd" in
  build) build ;;
  start)
    nodes=1 collection=Docs
    while [ $# -gt 0 ]; do
      case "$1" in
        --nodes) nodes=${2:?--nodes needs a number}; shift 2 ;;
        --collection) collection=${2:?--collection needs a name}; shift 2 ;;
        *) die "unknown option $1 (use --nodes N, --collection NAME)" ;;
      esac
    done
    [[ "$nodes" =~ ^[1-9][0-9]*$ ]] || die "--nodes $nodes: not a positive number"
    command -v curl >/dev/null || die "curl is needed to wait for the nodes"
    build
    mkdir -p "$run"
    shopt -s nullglob
    for f in "$run"/node*.pid; do
      kill -0 "$(cat "$f")" 2>/dev/null && die "already running (pid file $f): scripts/weaviate.sh stop first"
      rm -f "$f"
    done
    if [ "${DOCMIND_WEAVIATE_FRESH:-0}" = 1 ] || [ "$(cat "$run/nodes" 2>/dev/null || echo 0)" != "$nodes" ]; then
      rm -rf "$run/data" # a cluster of another size cannot reuse the data folders
    fi
    echo "$nodes" >"$run/nodes"
    : >"$run/start.log"
    # a node joins the cluster through node 1's gossip port, and gives up
    # when it is not listening yet: node 1 first, the others once it is
    start_node 1 "$nodes"
    if [ "$nodes" -gt 1 ]; then wait_port 1 "$(port 1 1)" 120; fi
    for i in $(seq 2 "$nodes"); do start_node "$i" "$nodes"; done
    for i in $(seq 1 "$nodes"); do wait_ready "$i" 180; done
    for i in $(seq 1 "$nodes"); do
      echo "node$i pid $(cat "$run/node$i.pid") http://127.0.0.1:$(port "$i" 0)" >&2
    done
    q=""; [ "$nodes" -gt 1 ] && q="?replication=$nodes"
    echo "weaviate://127.0.0.1:$(port 1 0)/$collection$q"
    ;;
  stop) stop ;;
  node)
    i=${1:?node index}; action=${2:-start}
    n=$(cat "$run/nodes" 2>/dev/null) || die "no cluster was started"
    case "$action" in
      kill) kill -KILL "$(cat "$run/node$i.pid")" ;;
      start) start_node "$i" "$n"; wait_ready "$i" 180; echo "http://127.0.0.1:$(port "$i" 0)" ;;
      *) die "node $i $action: use start or kill" ;;
    esac
    ;;
  *) die "usage: scripts/weaviate.sh start [--nodes N] [--collection NAME] | stop | build | node I start|kill" ;;
esac
