#!/usr/bin/env bash
# The HTTP contract (openapi.yaml, OpenAPI 3.1) against the real server: starts
# `handz-analytics serve` on a free loopback port with a fresh SQLite store and fresh keys, and runs
# Tests/Interop/schemathesis_contract.py (schemathesis generates and signs requests for every
# operation; no 5xx, every status, content type, header and body as documented).
#
#   scripts/check-openapi.sh              # builds handz-analytics first
#   HANDZ_BIN=path/to/handz-analytics scripts/check-openapi.sh   # uses that binary, no build
#   OPENAPI_EXAMPLES=150 OPENAPI_SEED=7 scripts/check-openapi.sh  # examples per operation (default 100), seed
#
# GET /openapi.json is checked too: the served document must equal openapi.yaml, and the generated
# Swift file that holds it must be current (scripts/generate-openapi-json.py --check).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
source scripts/lib/workdir.sh
source scripts/lib/server.sh
work_run_dir openapi
venv="$WORK_DIR/venv-schemathesis"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==4.32.5" "pytest==9.*"

handz_bin

# Fresh keys (their secrets are printed by `keys create`: kept out of the output): an ingest key,
# an admin key, and a revoked key.
keys="$RUN/handz-keys.json"
"$BIN" keys create --keys "$keys" --scope ingest >/dev/null
"$BIN" keys create --keys "$keys" --scope admin >/dev/null
"$BIN" keys create --keys "$keys" --scope ingest >/dev/null
revoked=$("$venv/bin/python" -c "import json,sys; print(json.load(open(sys.argv[1]))['keys'][2]['id'])" "$keys")
"$BIN" keys revoke --keys "$keys" "$revoked" >/dev/null

# A copy of the catalog (the 422 scenario breaks it and restores it), a short body timeout (the 408
# scenario waits it out) and a small install burst (the 429 scenario sends one burst and one event
# more); everything else as deployed.
cp -R "$ROOT/catalog" "$RUN/catalog"
body_timeout=2
install_burst=100
(cd "$RUN" && exec "$BIN" serve --catalog "$RUN/catalog" --db "$RUN/events.sqlite" --keys "$keys" \
   --host 127.0.0.1 --port 0 --synchronous normal --body-timeout "$body_timeout" --install-burst "$install_burst" \
   --log-level warning > "$RUN/server.log" 2>&1) &
server=$!
stop_server() { kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
trap stop_server EXIT

wait_for_port "$RUN/server.log" "$server"
port=$PORT
url="http://127.0.0.1:$port"
healthy=""
for _ in $(seq 1 100); do
  if "$venv/bin/python" -c "import json,sys,urllib.request; sys.exit(0 if json.load(urllib.request.urlopen(sys.argv[1] + '/health', timeout=2))['store_writable'] else 1)" "$url" 2>/dev/null; then
    healthy=1; break
  fi
  sleep 0.1
done
[ -n "$healthy" ] || { echo "the server is not healthy"; cat "$RUN/server.log"; exit 1; }
echo "server on $url (fresh store and keys in $RUN)"

args=(--url "$url" --keys "$keys" --schema "$ROOT/openapi.yaml" --examples "${OPENAPI_EXAMPLES:-100}" --seed "${OPENAPI_SEED:-20261122}" --body-timeout "$body_timeout" \
  --install-burst "$install_burst" --catalog-copy "$RUN/catalog")
[ "${OPENAPI_WITH_DOCUMENT:-1}" = 1 ] && args+=(--with-document)
"$venv/bin/python" "$ROOT/scripts/generate-openapi-json.py" --check
status=0
(cd "$RUN" && timeout "${OPENAPI_TIMEOUT:-600}" "$venv/bin/python" "$ROOT/Tests/Interop/schemathesis_contract.py" "${args[@]}") || status=$?
if ! kill -0 "$server" 2>/dev/null; then
  echo "the server exited during the run"; tail -20 "$RUN/server.log"; exit 1
fi
[ "$status" = 0 ] || { echo "contract check failed (exit $status); server log: $RUN/server.log"; exit "$status"; }
echo "openapi.yaml: the live server keeps the contract"
