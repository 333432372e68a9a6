#!/usr/bin/env bash
# Installs the peer `make bench` compares Thund with: dbt-core and the
# dbt-duckdb adapter, pinned, from PyPI, into a venv under the project's
# cache folder. Prints the path of the venv's dbt executable on success.
#
#   scripts/bench-dbt.sh          install if needed, print the dbt path
#   scripts/bench-dbt.sh version  print "dbt-core X dbt-duckdb Y duckdb Z"
#
# Environment: THUND_CACHE (default ~/.cache/thund).
set -euo pipefail

DBT_CORE_VERSION=1.11.16
DBT_DUCKDB_VERSION=1.11.1
CACHE="${THUND_CACHE:-$HOME/.cache/thund}"
VENV="$CACHE/dbt/venv-$DBT_CORE_VERSION-$DBT_DUCKDB_VERSION"

say() { echo "bench-dbt.sh: $*" >&2; }
die() { say "$*"; exit 1; }

install() {
	if [ -x "$VENV/bin/dbt" ] && [ -f "$VENV/.thund-installed" ]; then return; fi
	local py=""
	for p in python3 python; do
		if command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
	done
	[ -n "$py" ] || die "no python3 found: install Python 3.10 or newer (dbt-core $DBT_CORE_VERSION needs it)"
	say "installing dbt-core $DBT_CORE_VERSION and dbt-duckdb $DBT_DUCKDB_VERSION into $VENV"
	rm -rf "$VENV"
	mkdir -p "$(dirname "$VENV")"
	"$py" -m venv "$VENV" || die "cannot create a venv with $py: install the python3-venv package"
	"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
		"dbt-core==$DBT_CORE_VERSION" "dbt-duckdb==$DBT_DUCKDB_VERSION" >&2 ||
		die "pip could not install dbt-core $DBT_CORE_VERSION with dbt-duckdb $DBT_DUCKDB_VERSION"
	"$VENV/bin/dbt" --version >/dev/null 2>&1 || die "the installed dbt does not start: $VENV/bin/dbt --version"
	touch "$VENV/.thund-installed"
}

case "${1:-}" in
"") install; echo "$VENV/bin/dbt" ;;
version)
	install
	"$VENV/bin/python" -c 'import importlib.metadata as m; print("dbt-core", m.version("dbt-core"), "dbt-duckdb", m.version("dbt-duckdb"), "duckdb", m.version("duckdb"))'
	;;
*) echo "usage: $0 [version]" >&2; exit 2 ;;
esac
