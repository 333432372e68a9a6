#!/usr/bin/env bash
# Installs, starts and stops the Spark Connect servers Thund's Spark suite
# runs against: pyspark (one pinned release per supported Spark version)
# from PyPI in a venv of its own under the project's cache folder, started
# with spark-submit and the Connect server class, bound to 127.0.0.1 only,
# each version on a port of its own, with the table-format jars that load
# into it (fetched from Maven Central once into the cache, SHA-1 checked).
#
#   scripts/spark.sh install [V]  create V's venv, install pyspark and fetch its jars (reused if present)
#   scripts/spark.sh start [V]    install if needed, start V's server, wait until it answers
#   scripts/spark.sh stop [V]     stop V's server (without V: every server this script started)
#   scripts/spark.sh status [V]   say whether V's server runs (without V: any version's); exit 0 if so
#   scripts/spark.sh url [V]      print V's Spark Connect URL (sc://127.0.0.1:PORT)
#   scripts/spark.sh home [V]     print SPARK_HOME (the installed pyspark package)
#   scripts/spark.sh python [V]   print the venv's python (for spark-pipelines and descriptor dumps)
#   scripts/spark.sh jars [V]     print the jars start passes to V's server (one a line)
#   scripts/spark.sh format [V]   print the MERGE-capable table format V's server loads ("delta 4.1.0" or "none")
#   scripts/spark.sh versions     print the supported versions, oldest first
#
# V is a supported pyspark release (4.1.4, 4.2.1, 4.3.0) or its Spark
# version (4.1, 4.2, 4.3); without it, THUND_SPARK_VERSION, else 4.1.4.
# Only one server runs at a time: start refuses while another version's
# server runs (scripts/spark.sh stop first), as the machines the suite runs
# on have room for one JVM.
#
# Ports: 4.1.4 on 15002 (Spark's default), 4.2.1 on 15042, 4.3.0 on 15043.
# Environment: THUND_CACHE (default ~/.cache/thund), THUND_SPARK_VERSION,
# THUND_SPARK_PORT (overrides the version's port), THUND_SPARK_FORMAT
# (the table format start loads, see table_format), THUND_SPARK_WAIT
# (seconds start waits, default 120).
set -euo pipefail

VERSIONS="4.1.4 4.2.1 4.3.0"
CACHE="${THUND_CACHE:-$HOME/.cache/thund}"
DIR="$CACHE/spark"
JARS="$CACHE/jars"
HOST=127.0.0.1
WAIT="${THUND_SPARK_WAIT:-120}"
MAVEN="${THUND_MAVEN:-https://repo1.maven.org/maven2}"

say() { echo "spark.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# resolve V prints the supported pyspark release V names (4.1 -> 4.1.4).
resolve() {
	local want="$1" v
	for v in $VERSIONS; do
		if [ "$want" = "$v" ] || [ "$want" = "${v%.*}" ]; then echo "$v"; return; fi
	done
	die "unsupported Spark version \`$want\`: use one of $VERSIONS (or 4.1, 4.2, 4.3)"
}

# default_port V is the port V's server listens on unless THUND_SPARK_PORT says.
default_port() {
	case "$1" in
	4.1.4) echo 15002 ;;
	4.2.1) echo 15042 ;;
	4.3.0) echo 15043 ;;
	esac
}

# select V sets every per-version variable.
select_version() {
	PYSPARK_VERSION=$(resolve "$1")
	VENV="$DIR/venv-$PYSPARK_VERSION"
	PORT="${THUND_SPARK_PORT:-$(default_port "$PYSPARK_VERSION")}"
	# Each version and port has its own pid file, log and warehouse, so a
	# second server never clobbers the first one's.
	local suffix=""
	[ "$PORT" = "$(default_port "$PYSPARK_VERSION")" ] || suffix="-$PORT"
	RUN="$DIR/run-$PYSPARK_VERSION$suffix"
	WAREHOUSE="$DIR/warehouse-$PYSPARK_VERSION$suffix"
	PIDFILE="$RUN/connect.pid"
	LOG="$RUN/connect.log"
}

# table_format prints the MERGE-capable table format start loads into the
# selected Spark and its version ("delta 4.4.0"), or "none". Found by
# starting each server with a candidate and creating, writing, merging
# into and reading back a table (docs/format.md, "Table formats on
# Spark"):
#   4.1.4  Delta 4.3.0 loads (built for Spark 4.1), not loaded by default:
#          Spark 4.1 has no apply-changes flow, the one thing Thund needs
#          a merging format for; Iceberg 1.11.0 (runtime 4.1) fails.
#   4.2.1  Delta 4.4.0 (built for Spark 4.2); Delta 4.3.0 and Iceberg
#          1.11.0 and 1.12.0 fail to load.
#   4.3.0  none: Delta 4.3.0 fails to create a table, Delta 4.4.0 creates
#          and writes one but fails to merge or read it, Iceberg 1.11.0
#          and 1.12.0 fail to load their catalog.
# THUND_SPARK_FORMAT overrides it: "delta:VERSION", "iceberg:VERSION" or
# "none".
table_format() {
	local f="${THUND_SPARK_FORMAT:-}"
	if [ -z "$f" ]; then
		case "$PYSPARK_VERSION" in
		4.2.1) f=delta:4.4.0 ;;
		*) f=none ;;
		esac
	fi
	case "$f" in
	delta:* | iceberg:*) echo "${f%%:*} ${f#*:}" ;;
	*) echo none ;;
	esac
}

# format_jars prints, one a line, the Maven coordinates
# (group:artifact:version) of the table format's jars.
format_jars() {
	local name v
	read -r name v <<<"$(table_format)"
	case "$name" in
	delta) printf '%s\n' "io.delta:delta-spark_2.13:$v" "io.delta:delta-storage:$v" ;;
	iceberg) echo "org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:$v" ;;
	esac
}

# format_conf prints the server settings the table format needs, one
# --conf argument a line.
format_conf() {
	local name v
	read -r name v <<<"$(table_format)"
	case "$name" in
	delta)
		# Delta Lake as the session catalog: tables declared with
		# format delta are Delta tables (MERGE-capable); every other
		# format is handed on to Spark's own catalog unchanged.
		echo "spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension"
		echo "spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog"
		;;
	iceberg)
		echo "spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
		echo "spark.sql.catalog.spark_catalog=org.apache.iceberg.spark.SparkSessionCatalog"
		echo "spark.sql.catalog.spark_catalog.type=hadoop"
		echo "spark.sql.catalog.spark_catalog.warehouse=$WAREHOUSE/iceberg"
		;;
	esac
}

# jar_path prints where coordinate g:a:v is cached.
jar_path() {
	local g a v
	IFS=: read -r g a v <<<"$1"
	echo "$JARS/$g/$a-$v.jar"
}

# fetch_jar downloads coordinate g:a:v from Maven Central into the cache,
# checked against the .sha1 Maven Central publishes beside it.
fetch_jar() {
	local g a v
	IFS=: read -r g a v <<<"$1"
	local dest; dest=$(jar_path "$1")
	[ -f "$dest" ] && return
	command -v curl >/dev/null 2>&1 || die "curl is needed to fetch $1 from Maven Central"
	mkdir -p "$(dirname "$dest")"
	local url="$MAVEN/${g//.//}/$a/$v/$a-$v.jar"
	say "fetching $1 from $url"
	curl -fsSL --retry 3 -o "$dest.part" "$url" || { rm -f "$dest.part"; die "could not fetch $url"; }
	local want got
	want=$(curl -fsSL --retry 3 "$url.sha1" | cut -c1-40) || { rm -f "$dest.part"; die "could not fetch $url.sha1"; }
	got=$(sha1sum "$dest.part" | cut -c1-40)
	if [ "$want" != "$got" ]; then
		rm -f "$dest.part"
		die "$url: SHA-1 $got, Maven Central says $want"
	fi
	mv "$dest.part" "$dest"
}

jars() {
	local c
	for c in $(format_jars); do jar_path "$c"; done
}

python_bin() {
	for p in python3 python; do
		if command -v "$p" >/dev/null 2>&1; then echo "$p"; return; fi
	done
	die "no python3 found: install Python 3.10 or newer (pyspark $PYSPARK_VERSION needs it)"
}

spark_home() { "$VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))'; }

installed() {
	[ -x "$VENV/bin/python" ] && [ -f "$VENV/.thund-installed" ]
}

install() {
	local c
	for c in $(format_jars); do fetch_jar "$c"; done
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

java_bin() {
	if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then echo "$JAVA_HOME/bin/java"; return; fi
	command -v java 2>/dev/null || true
}

# java_major prints the major version of the java on PATH (or JAVA_HOME).
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

# others prints the versions other than the selected one whose server
# this script started and that still run.
others() {
	local v mine="$PYSPARK_VERSION" f
	for v in $VERSIONS; do
		[ "$v" = "$mine" ] && continue
		for f in "$DIR"/run-"$v"*/connect.pid; do
			[ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && echo "$v (pid $(cat "$f"))"
		done
	done
	true
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
	local busy; busy=$(others)
	if [ -n "$busy" ]; then
		die "another Spark version's server runs ($busy): one JVM at a time; stop it first (scripts/spark.sh stop)"
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
	local extra=() c
	local list; list=$(jars | paste -sd, -)
	[ -z "$list" ] || extra+=(--jars "$list")
	while read -r c; do
		[ -z "$c" ] || extra+=(--conf "$c")
	done <<<"$(format_conf)"
	local t0; t0=$(date +%s.%N)
	# The server runs from $RUN so derby and scratch files stay in the cache;
	# setsid gives it its own process group, which stop kills.
	(
		cd "$RUN"
		# The server outlives this script: it must not inherit the caller's
		# open files, or a `flock LOCK scripts/spark.sh start` would keep
		# the lock held by the server after the caller dies.
		for fd in $(ls /proc/$BASHPID/fd 2>/dev/null); do
			[ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null
		done
		export SPARK_HOME="$home" SPARK_LOCAL_IP="$HOST" PYSPARK_PYTHON="$VENV/bin/python"
		exec setsid "$home/bin/spark-submit" \
			--class org.apache.spark.sql.connect.service.SparkConnectServer \
			--name "thund Spark Connect $PYSPARK_VERSION" \
			--master "local[*]" \
			--conf spark.connect.grpc.binding.address=$HOST \
			--conf spark.connect.grpc.binding.port="$PORT" \
			--conf spark.driver.host=$HOST \
			--conf spark.driver.bindAddress=$HOST \
			--conf spark.ui.enabled=false \
			--conf spark.sql.warehouse.dir="$WAREHOUSE" \
			--conf spark.sql.shuffle.partitions=4 \
			--conf "spark.driver.extraJavaOptions=-Dderby.system.home=$RUN" \
			"${extra[@]}" \
			</dev/null >"$LOG" 2>&1 9>&-
	) &
	echo $! >"$PIDFILE"
	local pid; pid=$(cat "$PIDFILE")
	local deadline=$((SECONDS + WAIT))
	until port_open; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$PIDFILE"
			tail -n 30 "$LOG" >&2 || true
			die "the Spark Connect $PYSPARK_VERSION server exited during start-up; its log is $LOG"
		fi
		if [ $SECONDS -ge $deadline ]; then
			stop || true
			tail -n 30 "$LOG" >&2 || true
			die "the Spark Connect $PYSPARK_VERSION server did not answer on $HOST:$PORT within ${WAIT}s; its log is $LOG"
		fi
		sleep 0.5
	done
	local t1; t1=$(date +%s.%N)
	say "Spark Connect $PYSPARK_VERSION on sc://$HOST:$PORT (pid $pid), started in $(awk "BEGIN{printf \"%.1f\", $t1-$t0}")s; log $LOG"
}

stop() {
	if ! [ -f "$PIDFILE" ]; then
		say "$PYSPARK_VERSION not running (no pid file)"
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
		say "stopped $PYSPARK_VERSION (pid $pid)"
	else
		say "$PYSPARK_VERSION not running (stale pid file)"
	fi
	rm -f "$PIDFILE"
}

status() {
	if pid_alive && port_open; then
		echo "running: Spark Connect $PYSPARK_VERSION on sc://$HOST:$PORT (pid $(cat "$PIDFILE"))"
		return 0
	fi
	if port_open; then
		echo "something answers on $HOST:$PORT ($PYSPARK_VERSION's port), but not a server this script started"
		return 0
	fi
	echo "$PYSPARK_VERSION not running"
	return 1
}

# every CMD runs CMD for each supported version; it succeeds when one did.
every() {
	local v ok=1
	for v in $VERSIONS; do
		select_version "$v"
		if "$1"; then ok=0; fi
	done
	return $ok
}

cmd="${1:-}"
arg="${2:-}"
case "$cmd" in
status | stop)
	if [ -z "$arg" ] && [ -z "${THUND_SPARK_VERSION:-}" ]; then
		# Without a version: every version's server (and the shared
		# status line says each one's state).
		if [ "$cmd" = stop ]; then every stop || true; exit 0; fi
		every status
		exit $?
	fi
	;;
esac
select_version "${arg:-${THUND_SPARK_VERSION:-4.1.4}}"
case "$cmd" in
install) install; ensure_java ;;
start) start ;;
stop) stop ;;
status) status ;;
url) echo "sc://$HOST:$PORT" ;;
home) install; spark_home ;;
python) install; echo "$VENV/bin/python" ;;
jars) jars ;;
format) table_format ;;
versions) echo "$VERSIONS" | tr ' ' '\n' ;;
*) echo "usage: $0 install|start|stop|status|url|home|python|jars [VERSION] | versions" >&2; exit 2 ;;
esac
