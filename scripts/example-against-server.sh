#!/usr/bin/env bash
# The quickstart client as a user runs it: the built server (`node dist/main.js`, as in
# production) on a spare port against the run's DATABASE_URL and REDIS_URL, a Publisher key
# minted with the CLI, then `npm run example` against it; the server is stopped with SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${DATABASE_URL:?set DATABASE_URL to the database to serve from}"

node -e "require('./bin/ensure-built').ensureBuilt()"

WORK=$(mktemp -d /tmp/linkpilot-example-XXXXXX)
PORT=$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')
LOG="$WORK/server.log"
# No outside world: background probes off, FX upstreams on a closed loopback port.
PORT=$PORT HOST=127.0.0.1 PROBES_ENABLED=false WEBHOOK_WORKER_ENABLED=false \
  FX_PRIMARY_URL=http://127.0.0.1:9/fx-primary FX_FALLBACK_URL=http://127.0.0.1:9/fx-fallback \
  WEBHOOK_SECRET_KEY="$(node -p "require('crypto').randomBytes(32).toString('hex')")" DATA_DIR="$WORK" \
  node dist/main.js --migrate --seed >"$LOG" 2>&1 &
SERVER_PID=$!
cleanup() {
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$LOG"; echo "example: server exited"; exit 1; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null || { cat "$LOG"; echo "example: not ready"; exit 1; }

KEY=$(npx --no-install linkpilot creators create --plan publisher --with-key --json |
  node -pe 'JSON.parse(require("fs").readFileSync(0)).apiKey.apiKey')
OUTPUT=$(LINKPILOT_API_URL="http://127.0.0.1:$PORT/v1" LINKPILOT_API_KEY="$KEY" npm run --silent example)
echo "$OUTPUT"
echo "$OUTPUT" | grep -Eq "^created [0-9A-Z]+: http://[^ ]+/r/[0-9A-Z]+ -> https://"
echo "example: 1 passed, 0 failed"
