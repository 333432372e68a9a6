#!/usr/bin/env bash
# Regenerates analysis/sparkfuncs/catalogs/spark-VERSION.json, the catalog of Spark's
# built-in functions behind thund-lsp's function completion, hover and
# signature help, from a real Spark (scripts/gen-functions.py).
#
#   scripts/gen-functions.sh [VERSION]   pyspark release, default 4.1.4
#
# The pyspark comes from the venv scripts/spark.sh installs
# (~/.cache/thund/spark/venv-VERSION). A Spark Connect server of that
# version already running on this machine (scripts/spark.sh status) is
# reused; otherwise a local pyspark session runs for the generation (one
# JVM, stopped at the end). Only one Spark JVM at a time: stop other
# servers first.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${1:-4.1.4}"
PY="${THUND_CACHE:-$HOME/.cache/thund}/spark/venv-$VERSION/bin/python"
[ -x "$PY" ] || { echo "gen-functions.sh: no $PY: run scripts/spark.sh install first" >&2; exit 1; }
OUT="analysis/sparkfuncs/catalogs/spark-$VERSION.json"
declare -A PORTS=([4.1.4]=15002 [4.2.1]=15042 [4.3.0]=15043)
PORT="${THUND_SPARK_PORT:-${PORTS[$VERSION]:-15002}}"
if THUND_SPARK_VERSION="$VERSION" scripts/spark.sh status >/dev/null 2>&1 && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
	exec "$PY" scripts/gen-functions.py --remote "sc://127.0.0.1:$PORT" --out "$OUT"
fi
exec "$PY" scripts/gen-functions.py --out "$OUT"
