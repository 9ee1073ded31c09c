#!/usr/bin/env bash
# The newcomer's path: `npm start` with no database URLs (PGlite + in-process store), then
# mint a key with the CLI against the running server and call the API with it.
set -euo pipefail
cd "$(dirname "$0")/.."
unset DATABASE_URL REDIS_URL

DATA_DIR=$(mktemp -d /tmp/linkpilot-smoke-XXXXXX)
PORT=$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')
export DATA_DIR PORT
LOG="$DATA_DIR/server.log"

# Its own session, so cleanup stops npm and the node server under it, not npm alone.
setsid npm start >"$LOG" 2>&1 &
SERVER_PID=$!
cleanup() {
  kill -- "-$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT

for _ in $(seq 1 90); do
  curl -fsS "http://127.0.0.1:$PORT/v1/health" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$LOG"; echo "smoke: server exited"; exit 1; }
  sleep 1
done
HEALTH=$(curl -fsS "http://127.0.0.1:$PORT/v1/health")
echo "smoke: health $HEALTH"
echo "$HEALTH" | node -e 'const h=JSON.parse(require("fs").readFileSync(0));if(h.data.status!=="ok")process.exit(1)'

KEY=$(npx --no-install linkpilot creators create --plan publisher --with-key --json |
  node -pe 'JSON.parse(require("fs").readFileSync(0)).apiKey.apiKey')
STATUS=$(curl -s -o "$DATA_DIR/account.json" -w '%{http_code}' -H "Authorization: Bearer $KEY" \
  "http://127.0.0.1:$PORT/v1/account")
echo "smoke: GET /v1/account -> $STATUS $(cat "$DATA_DIR/account.json")"
[ "$STATUS" = 200 ]
echo "1 passed, 0 failed"
