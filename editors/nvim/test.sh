#!/usr/bin/env bash
# End-to-end test of thund-lsp with Neovim, a real LSP client nobody here
# wrote: headless Neovim runs e2e.lua against bin/thund-lsp on a temporary
# copy of testdata/retail plus a file with a deliberate error, and checks
# diagnostics, a quick fix applied from the code-action menu (and the
# diagnostic clearing after it), hover on a dataset and on a column,
# references, go-to-definition, and a column rename across datasets. Exit status 0 on success, 1 with a message on failure.
#
# Usage: editors/nvim/test.sh            (from anywhere; `make test-nvim`)
# Env:   THUND_LSP  the server binary (default: bin/thund-lsp of this repo)
#        NVIM       the nvim binary (default: nvim on PATH; when there is
#                   none, Debian's neovim package is installed, as root)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${THUND_LSP:-$repo/bin/thund-lsp}
nvim=${NVIM:-nvim}

if [ ! -x "$bin" ]; then
	echo "nvim e2e: FAIL: $bin is missing: build it first (make test-nvim does)" >&2
	exit 1
fi

if ! command -v "$nvim" >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "nvim e2e: FAIL: nvim is not installed; install Neovim 0.7 or later (Debian: apt-get install neovim)" >&2
		exit 1
	fi
	echo "nvim e2e: installing Debian's neovim package"
	export DEBIAN_FRONTEND=noninteractive
	# Wait for another apt or dpkg run rather than fail on its lock.
	apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends neovim >/dev/null
	nvim=nvim
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$repo/testdata/retail" "$work/retail"
rm -rf "$work/retail/storage"
# The deliberate error: clean_order (no s) on line 3, an unknown reference.
cat >"$work/retail/transformations/broken.sql" <<'SQL'
-- A file with a typo, for the end-to-end test.
SELECT order_id, amount
FROM clean_order
SQL

# The whole run is bounded too, in case Neovim itself hangs.
THUND_LSP="$bin" THUND_ROOT="$work/retail" \
	timeout 120 "$nvim" --headless --clean -n -i NONE -c "luafile $here/e2e.lua" </dev/null
