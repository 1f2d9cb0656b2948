#!/usr/bin/env bash
# A real llama.cpp llama-server on loopback, for the integration tests of
# DocMind's LLM mode (cmd/docmind and llm/openai, files
# llamaserver_integration_test.go; they run only when DOCMIND_LLAMA_SERVER
# holds the URL this prints, and .ci/run runs them).
#
#   scripts/llama-server.sh build   build llama-server (CPU only) and write
#                                   the tiny model, once; about 15 min on 2
#                                   idle cores, nothing once built
#   scripts/llama-server.sh start   start it on a free loopback port, wait
#                                   for /health, print its URL last
#   scripts/llama-server.sh stop    stop it
#
# The source is the llama.cpp release that the npm package node-llama-cpp
# ships as a git bundle (llama/gitRelease.bundle): the npm registry is
# reachable where GitHub is not. The model is random-weight (qwen2
# architecture, 2 layers, n_embd 64, 45 MB) with the real Qwen2 tokenizer
# and chat template copied from llama.cpp's models/ggml-vocab-qwen2.gguf,
# written by scripts/tinygguf (Go, no Python needed): its replies are noise,
# so the tests assert the protocol, never answers. The server is started
# with the --logit-bias arguments tinygguf writes beside the model (greedy
# decoding prefers the tokens that close JSON where a json_schema grammar
# allows them), so that a schema reply ends within its token limit and
# DocMind parses what the model sent; LLAMA_JSON_BIAS=0 starts it without.
#
# Everything lives in $DOCMIND_LLAMA_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/docmind/llama-NODE_LLAMA_CPP_VERSION, so that
# another version builds afresh). Environment:
#   NODE_LLAMA_CPP_VERSION  npm version to take the source from (3.22.1)
#   LLAMA_JOBS              parallel compile jobs (2)
#   LLAMA_N_PREDICT         the server's -n: the tokens generated for a request
#                           that sends no max_tokens (64; max_tokens wins)
#   LLAMA_START_TIMEOUT     seconds start waits for /health (300: a busy machine
#                           is slow to load even a tiny model)
#   LLAMA_CTX               the server's context size, shared by its 2 slots (32768)
#   LLAMA_JSON_BIAS         1 (default): start with the model's --logit-bias
#                           arguments; 0: without them
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
version=${NODE_LLAMA_CPP_VERSION:-3.22.1}
cache=${DOCMIND_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docmind/llama-$version}
jobs=${LLAMA_JOBS:-2}
n_predict=${LLAMA_N_PREDICT:-64}
ctx=${LLAMA_CTX:-32768}
start_timeout=${LLAMA_START_TIMEOUT:-300}
bin=$cache/build/bin/llama-server
model=$cache/tiny-qwen2.gguf
pidfile=$cache/llama-server.pid
urlfile=$cache/llama-server.url
log=$cache/llama-server.log

say() { echo "llama-server.sh: $*" >&2; }

need_cmake() {
  command -v cmake >/dev/null && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing cmake (apt-get)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake >/dev/null
  else
    say "cmake is missing (install it, e.g. apt-get install cmake)"; exit 1
  fi
}

fetch_source() {
  if [ -d "$cache/src/.git" ]; then return; fi
  local tmp; tmp=$(mktemp -d)
  say "fetching node-llama-cpp@$version from the npm registry"
  (cd "$tmp" && npm pack --silent "node-llama-cpp@$version" >/dev/null)
  tar -xzf "$tmp"/node-llama-cpp-*.tgz -C "$tmp" package/llama/gitRelease.bundle
  rm -rf "$cache/src"
  git -c advice.detachedHead=false clone -q "$tmp/package/llama/gitRelease.bundle" "$cache/src"
  rm -rf "$tmp"
  say "llama.cpp source: $(git -C "$cache/src" describe --tags --always 2>/dev/null || echo unknown)"
}

build() {
  mkdir -p "$cache"
  command -v git >/dev/null && command -v npm >/dev/null && command -v c++ >/dev/null ||
    { say "need git, npm and a C++ compiler"; exit 1; }
  need_cmake
  fetch_source
  if [ ! -x "$bin" ]; then
    say "configuring (CPU only)"
    # No prebuilt web UI (it would be downloaded), no HTTPS (loopback
    # only; no libssl-dev needed). LLAMA_CURL is gone from this release
    # (cmake ignores it, with a warning), so it is not passed.
    cmake -S "$cache/src" -B "$cache/build" -DCMAKE_BUILD_TYPE=Release \
      -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF \
      -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DGGML_OPENMP=OFF \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >"$cache/cmake-configure.log" 2>&1 ||
      { tail -20 "$cache/cmake-configure.log" >&2; say "cmake configure failed (log: $cache/cmake-configure.log)"; exit 1; }
    say "building llama-server with -j$jobs (log: $cache/cmake-build.log)"
    local t0=$SECONDS
    nice -n 15 cmake --build "$cache/build" --target llama-server -j "$jobs" >"$cache/cmake-build.log" 2>&1 ||
      { grep -m 20 -E 'error|Error' "$cache/cmake-build.log" >&2; say "build failed (log: $cache/cmake-build.log)"; exit 1; }
    say "built in $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"
  fi
  write_model
  say "ready: $bin, $model"
}

write_model() {
  local vocab=$cache/src/models/ggml-vocab-qwen2.gguf
  [ -f "$vocab" ] || { say "$vocab is missing from the llama.cpp source"; exit 1; }
  # again when the writer changed (it is seeded: the same file each time)
  if [ ! -f "$model" ] || [ ! -f "$model.logit-bias" ] || [ "$vocab" -nt "$model" ] ||
    [ "$repo/scripts/tinygguf/main.go" -nt "$model" ]; then
    (cd "$repo" && go run ./scripts/tinygguf -vocab "$vocab" -out "$model")
  fi
}

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

start() {
  [ -x "$bin" ] && [ -f "$model" ] || { say "not built: run scripts/llama-server.sh build"; exit 1; }
  if running; then cat "$urlfile"; return; fi
  # A free loopback port: a random one in 20000-59999 that nothing answers on.
  local port
  for _ in $(seq 1 50); do
    port=$(( 20000 + RANDOM % 40000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
  done
  local bias=()
  if [ "${LLAMA_JSON_BIAS:-1}" != 0 ]; then
    [ -f "$model.logit-bias" ] || { say "$model.logit-bias is missing: run scripts/llama-server.sh build"; exit 1; }
    while read -r b; do bias+=(--logit-bias "$b"); done <"$model.logit-bias"
  fi
  say "starting on 127.0.0.1:$port (log: $log)"
  nohup "$bin" -m "$model" --host 127.0.0.1 --port "$port" -n "$n_predict" -c "$ctx" \
    -t 2 --parallel 2 --jinja --no-webui "${bias[@]}" >"$log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local url=http://127.0.0.1:$port
  for _ in $(seq 1 $(( start_timeout * 2 ))); do
    if ! running; then say "exited early:"; tail -20 "$log" >&2; rm -f "$pidfile"; exit 1; fi
    if curl -fsS "$url/health" >/dev/null 2>&1; then
      echo "$url" >"$urlfile"
      echo "$url"
      return
    fi
    sleep 0.5
  done
  say "no answer on $url/health after $start_timeout s"; stop; exit 1
}

stop() {
  if running; then
    local pid; pid=$(cat "$pidfile")
    kill "$pid"
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    say "stopped (pid $pid)"
  else
    say "not running"
  fi
  rm -f "$pidfile" "$urlfile"
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  model) write_model ;;
  *) echo "usage: $0 build|start|stop" >&2; exit 2 ;;
esac
