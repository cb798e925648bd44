#!/usr/bin/env bash
# scripts/neo4j.sh - a real, local Neo4j 5.26 Community server (embedded, Bolt
# only, auth disabled) for tests and CI. No Docker, no downloads except Maven
# Central (only on the first build). See tools/neo4j-launcher/README.md.
#
# Usage: scripts/neo4j.sh start|stop|restart|status|wait|build|uri|log [--port N|auto] [--timeout S]
#
#   start    build the launcher if needed, start the server in the background,
#            wait until Bolt accepts connections; prints the URI
#            (bolt://127.0.0.1:PORT) as the only line on stdout. A no-op
#            success when it is already running on that port. Every start
#            begins with an EMPTY database. With --port auto it picks a
#            free port (the URI says which; pass it to stop).
#   stop     stop the server started by `start` on that port (no-op if none).
#   restart  stop, then start.
#   status   exit 0 and print the URI if running, exit 3 if not.
#   wait     wait until the server on that port accepts Bolt; prints the URI.
#   build    only build tools/neo4j-launcher (mvn, offline first).
#   uri      print bolt://127.0.0.1:PORT.
#   log      print the tail of the server log.
#
# Environment (all optional):
#   KGJUDGE_NEO4J_PORT       Bolt port, or auto (default 7687; --port wins)
#   KGJUDGE_NEO4J_DIR        state dir (default /tmp/kgjudge-neo4j); per port it
#                            holds port-N/{neo4j.pid,neo4j.log,home/}. Give each
#                            concurrent user its own (scripts/test.sh does), so
#                            that one's stop never reaches another's server.
#   KGJUDGE_NEO4J_TIMEOUT    seconds to wait for readiness (default 180)
#   KGJUDGE_NEO4J_HEAP       max heap (default 1g)
#   KGJUDGE_NEO4J_PAGECACHE  page cache in MB (default 64)
#   KGJUDGE_NEO4J_JAVA       java binary to run Neo4j with (default: a Java 17
#                            or 21 from JAVA_HOME, PATH or /usr/lib/jvm)
#   KGJUDGE_NEO4J_JAVA_OPTS  extra JVM options (appended, so they win)
#
# It exports nothing; callers do e.g.  export NEO4J_URI="$(scripts/neo4j.sh start)"
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LAUNCHER_DIR="$ROOT/tools/neo4j-launcher"
MAIN_CLASS="com.github.kgjudge.neo4jlauncher.Neo4jLauncher"
MAIN_CLASS_FILE="$LAUNCHER_DIR/target/classes/com/github/kgjudge/neo4jlauncher/Neo4jLauncher.class"
STAMP="$LAUNCHER_DIR/target/.built"

PORT="${KGJUDGE_NEO4J_PORT:-7687}"
BASE="${KGJUDGE_NEO4J_DIR:-/tmp/kgjudge-neo4j}"
TIMEOUT="${KGJUDGE_NEO4J_TIMEOUT:-180}"
HEAP="${KGJUDGE_NEO4J_HEAP:-1g}"
PAGECACHE="${KGJUDGE_NEO4J_PAGECACHE:-64}"

say() { echo "neo4j.sh: $*" >&2; }
die() { say "$*"; exit 1; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  exit 2
}

CMD="${1:-}"
[ -n "$CMD" ] || usage
shift
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || usage; PORT="$2"; shift 2 ;;
    --port=*) PORT="${1#--port=}"; shift ;;
    --timeout) [ $# -ge 2 ] || usage; TIMEOUT="$2"; shift 2 ;;
    --timeout=*) TIMEOUT="${1#--timeout=}"; shift ;;
    -h|--help) usage ;;
    *) say "unknown argument: $1"; usage ;;
  esac
done
case "$PORT" in
  auto) [ "$CMD" = start ] || [ "$CMD" = build ] || die "--port auto is for start only (the other commands need the port start printed)" ;;
  ''|*[!0-9]*) die "bad port: $PORT" ;;
esac
case "$TIMEOUT" in ''|*[!0-9]*) die "bad timeout: $TIMEOUT" ;; esac

set_port() { # the per-port paths
  PORT="$1"
  STATE="$BASE/port-$PORT"
  PIDFILE="$STATE/neo4j.pid"
  LOG="$STATE/neo4j.log"
  HOME_DIR="$STATE/home"
  URI="bolt://127.0.0.1:$PORT"
}
[ "$PORT" = auto ] || set_port "$PORT"

# ---------------------------------------------------------------- helpers

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pid of our launcher on this port, or nothing
running_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  case "$pid" in ''|*[!0-9]*) return 1 ;; esac
  kill -0 "$pid" 2>/dev/null || return 1
  # guard against pid reuse
  if [ -r "/proc/$pid/cmdline" ]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$MAIN_CLASS" || return 1
  fi
  echo "$pid"
}

java_major() { # prints the major version of the java binary $1
  "$1" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1
}

pick_java() {
  if [ -n "${KGJUDGE_NEO4J_JAVA:-}" ]; then echo "$KGJUDGE_NEO4J_JAVA"; return; fi
  local c m
  # Neo4j 5.26 supports Java 17 and 21.
  for c in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java 2>/dev/null || true)" \
           /usr/lib/jvm/java-17-openjdk*/bin/java /usr/lib/jvm/*17*/bin/java \
           /usr/lib/jvm/java-21-openjdk*/bin/java /usr/lib/jvm/*21*/bin/java; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    m="$(java_major "$c")"
    if [ "$m" = 17 ] || [ "$m" = 21 ]; then echo "$c"; return; fi
  done
  c="${JAVA_HOME:+$JAVA_HOME/bin/java}"
  c="${c:-$(command -v java 2>/dev/null || true)}"
  [ -n "$c" ] || die "no java found (Neo4j 5.26 needs Java 17 or 21)"
  say "warning: no Java 17/21 found, trying $c (Java $(java_major "$c"))"
  echo "$c"
}

lock() { # serialize start/stop across concurrent callers of one state dir
  mkdir -p "$BASE"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$BASE/.lock"
    flock -w 900 9 || die "could not lock $BASE/.lock"
  fi
}

build_lock() { # serialize builds of one launcher (state dirs may differ)
  mkdir -p "$LAUNCHER_DIR/target"
  if command -v flock >/dev/null 2>&1; then
    exec 8>"$LAUNCHER_DIR/target/.build.lock"
    flock -w 900 8 || die "could not lock $LAUNCHER_DIR/target/.build.lock"
  fi
}

# free_port prints a TCP port nothing listens on and no state dir claims.
# (Another process may still take it before Neo4j binds: start retries.)
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [ -e "$BASE/port-$p" ] && continue
    port_open "$p" && continue
    echo "$p"
    return 0
  done
  die "no free port found in 20000-59999"
}

needs_build() {
  [ -f "$STAMP" ] && [ -f "$MAIN_CLASS_FILE" ] && [ -d "$LAUNCHER_DIR/target/dependency" ] || return 0
  [ -n "$(find "$LAUNCHER_DIR/pom.xml" "$LAUNCHER_DIR/src" -newer "$STAMP" -print -quit)" ]
}

build() {
  build_lock
  needs_build || { exec 8>&-; return 0; }
  command -v mvn >/dev/null 2>&1 || die "mvn not found (needed once to build $LAUNCHER_DIR)"
  mkdir -p "$BASE"
  local blog="$BASE/build.log" t0=$SECONDS
  local mvnargs=(-B -q -Dstyle.color=never -f "$LAUNCHER_DIR/pom.xml" compile)
  say "building $LAUNCHER_DIR (log: $blog)"
  # Offline first (works with a warm ~/.m2 and no network), then online.
  if ! mvn -o "${mvnargs[@]}" >"$blog" 2>&1 </dev/null; then
    say "offline build failed, resolving from Maven Central (first run downloads ~125 MB)"
    if ! mvn "${mvnargs[@]}" >>"$blog" 2>&1 </dev/null; then
      tail -n 40 "$blog" >&2
      die "build failed (full log: $blog)"
    fi
  fi
  touch "$STAMP"
  say "built in $((SECONDS - t0)) s"
  exec 8>&-
}

print_log_tail() {
  say "---- last lines of $LOG ----"
  tail -n "${1:-40}" "$LOG" >&2 2>/dev/null || true
  if [ -f "$HOME_DIR/logs/debug.log" ]; then
    say "---- last ERROR/WARN lines of $HOME_DIR/logs/debug.log ----"
    grep -E ' (ERROR|WARN) ' "$HOME_DIR/logs/debug.log" | tail -n 15 >&2 || true
  fi
}

# wait until pid (optional) printed the ready line and the port accepts TCP
wait_ready() {
  local pid="${1:-}" deadline=$((SECONDS + TIMEOUT))
  while [ $SECONDS -lt $deadline ]; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      print_log_tail
      rm -f "$PIDFILE"
      die "Neo4j exited during startup"
    fi
    if { [ -z "$pid" ] || grep -q '^NEO4J READY ' "$LOG" 2>/dev/null; } && port_open "$PORT"; then
      return 0
    fi
    sleep 0.25
  done
  print_log_tail
  return 1
}

# ---------------------------------------------------------------- commands

do_start() {
  lock
  if [ "$PORT" = auto ]; then
    local try
    for try in 1 2 3; do
      set_port "$(free_port)"
      if (start_on_port); then return 0; fi
      # Only a lost race for the port is worth another try.
      grep -qiE 'address already in use|BindException' "$LOG" 2>/dev/null || exit 1
      say "port $PORT was taken meanwhile, trying another"
    done
    die "could not start on a free port after 3 tries"
  fi
  start_on_port
}

start_on_port() {
  local pid
  if pid="$(running_pid)"; then
    if wait_ready "$pid"; then
      say "already running (pid $pid) on $URI"
      echo "$URI"
      return 0
    fi
    die "pid $pid is running but not ready after ${TIMEOUT}s"
  fi
  if port_open "$PORT"; then
    die "port $PORT is already in use by another process (try --port N or --port auto)"
  fi
  build
  local java
  java="$(pick_java)"
  mkdir -p "$STATE"
  rm -rf "$HOME_DIR"
  rm -f "$PIDFILE"
  local opts=(
    -Xms256m "-Xmx$HEAP"
    # C1 only: halves start-up CPU (10 s -> 5 s on 2 shared cores); test
    # queries are small. Override with KGJUDGE_NEO4J_JAVA_OPTS=-XX:TieredStopAtLevel=4
    -XX:TieredStopAtLevel=1
    -XX:-OmitStackTraceInFastThrow -XX:+ExitOnOutOfMemoryError
    -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
    --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    -Dio.netty.tryReflectionSetAccessible=true
    -Djdk.nio.maxCachedBufferSize=1024
    -Dlog4j2.disable.jmx=true
    -Dfile.encoding=UTF-8
  )
  # shellcheck disable=SC2206
  [ -z "${KGJUDGE_NEO4J_JAVA_OPTS:-}" ] || opts+=(${KGJUDGE_NEO4J_JAVA_OPTS})
  say "starting Neo4j on $URI (java: $java, log: $LOG)"
  local t0=$SECONDS
  # Detached: no stdin, output to the log, lock fd closed, immune to SIGHUP.
  nohup "$java" "${opts[@]}" \
    -cp "$LAUNCHER_DIR/target/classes:$LAUNCHER_DIR/target/dependency/*" \
    "$MAIN_CLASS" --port "$PORT" --data "$HOME_DIR" --pagecache "$PAGECACHE" \
    </dev/null >"$LOG" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$PIDFILE"
  if ! wait_ready "$pid"; then
    kill "$pid" 2>/dev/null || true
    rm -f "$PIDFILE"
    die "Neo4j not ready after ${TIMEOUT}s"
  fi
  say "ready in $((SECONDS - t0)) s (pid $pid)"
  echo "$URI"
}

do_stop() {
  lock
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PIDFILE"
    say "not running on port $PORT"
    return 0
  fi
  say "stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 120); do # 30 s
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "still alive after 30 s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$PIDFILE"
  say "stopped"
}

do_status() {
  local pid
  if pid="$(running_pid)" && port_open "$PORT"; then
    say "running (pid $pid)"
    echo "$URI"
    return 0
  fi
  say "not running on port $PORT"
  return 3
}

do_wait() {
  if wait_ready "$(running_pid || true)"; then
    echo "$URI"
    return 0
  fi
  die "nothing accepts Bolt on $URI after ${TIMEOUT}s"
}

case "$CMD" in
  start) do_start ;;
  stop) do_stop ;;
  restart) do_stop; exec 9>&-; do_start ;;
  status) do_status ;;
  wait) do_wait ;;
  build) build ;;
  uri) echo "$URI" ;;
  log|logs) tail -n 100 "$LOG" ;;
  *) usage ;;
esac
