#!/usr/bin/env bash
# Installs, starts and stops the Spark Connect server Thund's Spark suite
# runs against: pyspark (pinned) from PyPI in a venv under the project's
# cache folder, started with spark-submit and the Connect server class,
# bound to 127.0.0.1 only.
#
#   scripts/spark.sh install   create the venv and install pyspark (reused if present)
#   scripts/spark.sh start     install if needed, start the server, wait until it answers
#   scripts/spark.sh stop      stop the server this script started
#   scripts/spark.sh status    say whether it runs (exit 0) or not (exit 1)
#   scripts/spark.sh home      print SPARK_HOME (the installed pyspark package)
#   scripts/spark.sh python    print the venv's python (for spark-pipelines and descriptor dumps)
#
# Environment: THUND_CACHE (default ~/.cache/thund), THUND_SPARK_PORT
# (default 15002), THUND_SPARK_WAIT (seconds start waits, default 120).
set -euo pipefail

PYSPARK_VERSION=4.1.4
CACHE="${THUND_CACHE:-$HOME/.cache/thund}"
DIR="$CACHE/spark"
VENV="$DIR/venv-$PYSPARK_VERSION"
HOST=127.0.0.1
PORT="${THUND_SPARK_PORT:-15002}"
# Each port has its own pid file, log and warehouse, so a second server on
# another port never clobbers the first one's (the default port keeps the
# plain names).
SUFFIX=""
[ "$PORT" = 15002 ] || SUFFIX="-$PORT"
RUN="$DIR/run$SUFFIX"
WAREHOUSE="$DIR/warehouse$SUFFIX"
PIDFILE="$RUN/connect.pid"
LOG="$RUN/connect.log"
WAIT="${THUND_SPARK_WAIT:-120}"

say() { echo "spark.sh: $*" >&2; }
die() { say "$*"; exit 1; }

python_bin() {
	for p in python3 python; do
		if command -v "$p" >/dev/null 2>&1; then echo "$p"; return; fi
	done
	die "no python3 found: install Python 3.10 or newer (pyspark $PYSPARK_VERSION needs it)"
}

spark_home() { echo "$("$VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"; }

installed() {
	[ -x "$VENV/bin/python" ] && [ -f "$VENV/.thund-installed" ]
}

install() {
	if installed; then return; fi
	mkdir -p "$DIR"
	local py; py=$(python_bin)
	say "installing pyspark $PYSPARK_VERSION into $VENV"
	rm -rf "$VENV"
	"$py" -m venv "$VENV" || die "cannot create a venv with $py: install the python3-venv package"
	"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
		"pyspark[pipelines]==$PYSPARK_VERSION" || die "pip could not install pyspark $PYSPARK_VERSION"
	local home; home=$(spark_home)
	for jar in spark-connect_2.13 spark-pipelines_2.13; do
		ls "$home/jars/$jar-$PYSPARK_VERSION.jar" >/dev/null 2>&1 ||
			die "pyspark $PYSPARK_VERSION has no jars/$jar-$PYSPARK_VERSION.jar; fetch it from Maven Central into $DIR/jars and pass it with --jars"
	done
	touch "$VENV/.thund-installed"
}

# java_major prints the major version of the java on PATH (or JAVA_HOME).
java_bin() {
	if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then echo "$JAVA_HOME/bin/java"; return; fi
	command -v java 2>/dev/null || true
}

java_major() {
	local j; j=$(java_bin)
	[ -n "$j" ] || { echo 0; return; }
	"$j" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1
}

ensure_java() {
	local v; v=$(java_major)
	if [ "${v:-0}" -ge 17 ]; then return; fi
	if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		say "no Java 17+ found (have: ${v:-none}); installing openjdk-17-jre-headless"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
		v=$(java_major)
	fi
	[ "${v:-0}" -ge 17 ] || die "Spark $PYSPARK_VERSION needs Java 17 or 21 (found: ${v:-none}); install one and set JAVA_HOME"
}

port_open() {
	(exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null
}

pid_alive() {
	[ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

start() {
	mkdir -p "$DIR"
	# One start at a time: test binaries of several packages may call
	# start together.
	exec 9>"$DIR/start.lock"
	flock 9
	if pid_alive && port_open; then
		say "already running (pid $(cat "$PIDFILE")) on sc://$HOST:$PORT"
		return
	fi
	if port_open; then
		die "port $PORT on $HOST is taken by another process; stop it or set THUND_SPARK_PORT"
	fi
	install
	ensure_java
	# The catalog lives in the server's memory, so tables written by an
	# earlier server are orphans whose folders would block new tables of
	# the same name (LOCATION_ALREADY_EXISTS): start with an empty warehouse.
	rm -rf "$WAREHOUSE"
	mkdir -p "$RUN" "$WAREHOUSE"
	local home; home=$(spark_home)
	local t0; t0=$(date +%s.%N)
	# The server runs from $RUN so derby and scratch files stay in the cache;
	# setsid gives it its own process group, which stop kills.
	(
		cd "$RUN"
		export SPARK_HOME="$home" SPARK_LOCAL_IP="$HOST" PYSPARK_PYTHON="$VENV/bin/python"
		exec setsid "$home/bin/spark-submit" \
			--class org.apache.spark.sql.connect.service.SparkConnectServer \
			--name "thund Spark Connect" \
			--master "local[*]" \
			--conf spark.connect.grpc.binding.address=$HOST \
			--conf spark.connect.grpc.binding.port="$PORT" \
			--conf spark.driver.host=$HOST \
			--conf spark.driver.bindAddress=$HOST \
			--conf spark.ui.enabled=false \
			--conf spark.sql.warehouse.dir="$WAREHOUSE" \
			--conf spark.sql.shuffle.partitions=4 \
			--conf "spark.driver.extraJavaOptions=-Dderby.system.home=$RUN" \
			</dev/null >"$LOG" 2>&1 9>&-
	) &
	echo $! >"$PIDFILE"
	local pid; pid=$(cat "$PIDFILE")
	local deadline=$((SECONDS + WAIT))
	until port_open; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$PIDFILE"
			tail -n 30 "$LOG" >&2 || true
			die "the Spark Connect server exited during start-up; its log is $LOG"
		fi
		if [ $SECONDS -ge $deadline ]; then
			stop || true
			tail -n 30 "$LOG" >&2 || true
			die "the Spark Connect server did not answer on $HOST:$PORT within ${WAIT}s; its log is $LOG"
		fi
		sleep 0.5
	done
	local t1; t1=$(date +%s.%N)
	say "Spark Connect $PYSPARK_VERSION on sc://$HOST:$PORT (pid $pid), started in $(awk "BEGIN{printf \"%.1f\", $t1-$t0}")s; log $LOG"
}

stop() {
	if ! [ -f "$PIDFILE" ]; then
		say "not running (no pid file)"
		return 0
	fi
	local pid; pid=$(cat "$PIDFILE")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 40); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
		fi
		say "stopped (pid $pid)"
	else
		say "not running (stale pid file)"
	fi
	rm -f "$PIDFILE"
}

status() {
	if pid_alive && port_open; then
		echo "running: sc://$HOST:$PORT (pid $(cat "$PIDFILE"))"
		return 0
	fi
	if port_open; then
		echo "something answers on $HOST:$PORT, but not a server this script started"
		return 0
	fi
	echo "not running"
	return 1
}

case "${1:-}" in
install) install; ensure_java ;;
start) start ;;
stop) stop ;;
status) status ;;
home) install; spark_home ;;
python) install; echo "$VENV/bin/python" ;;
*) echo "usage: $0 install|start|stop|status|home|python" >&2; exit 2 ;;
esac
