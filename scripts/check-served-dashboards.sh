#!/usr/bin/env bash
# The live dashboards of `handz-analytics serve` (/dashboards/) in a real browser: a simulated
# dataset is imported, the server started on loopback with fresh keys (an analyst key that logs in,
# an ingest and an admin key that must not), and Tests/Interop/served_dashboards_browser.py drives
# headless Chromium through chromium-driver (Selenium 4): login, every dashboard, a custom range,
# the comparison with the previous period, a breakdown and the funnel explorer, each figure checked
# against the CLI; plus the HTTP-level refusals (no session, wrong keys, foreign Origin, crafted
# parameters) with urllib. Screenshots of every step in $RUN/screenshots. Every step is bounded.
#
#   scripts/check-served-dashboards.sh                                   # builds handz-analytics first
#   HANDZ_BIN=path/to/handz-analytics scripts/check-served-dashboards.sh # uses that binary, no build
#
# Run by scripts/test.sh (and so by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/workdir.sh
source scripts/lib/packages.sh
source scripts/lib/server.sh
work_run_dir served-dashboards
mkdir -p "$RUN/screenshots" "$RUN/guide"
started=$SECONDS

# --- Debian packages: Chromium, its WebDriver, venv (installed only when missing).
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
apt_install "${need[@]}"

# --- Python: the shared venv, plus Selenium.
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if ! "$VENV/bin/python" -c "import selenium" 2>/dev/null; then
  timeout 900 "$VENV/bin/pip" install -q --disable-pip-version-check 'selenium>=4.15,<5'
fi

# --- The binary, the data (the debug build scripts/test.sh has already made, unless HANDZ_BIN).
handz_bin
FROM=2026-03-01 TO=2026-03-14   # TO: the last day, inclusive (the dashboards' `to`)
timeout 300 "$BIN" simulate --installs 300 --days 14 --seed 20260301 --start "$FROM" --out "$RUN/events.ndjson" >/dev/null
timeout 300 "$BIN" import --db "$RUN/store.sqlite" "$RUN/events.ndjson" >/dev/null

# --- Keys: `keys create` prints "key id: …", "scopes: …", "secret: <64 hex>". The secrets stay in
# variables and reach the test through its environment: never printed, never in argv.
keys="$RUN/keys.json"
new_key() {  # new_key SCOPE: sets KEY_ID and KEY_SECRET
  local out
  out=$(timeout 60 "$BIN" keys create --keys "$keys" --scope "$1") || { echo "FAIL keys create --scope $1"; exit 1; }
  KEY_ID=$(sed -n 's/^key id: *//p' <<<"$out" | head -1)
  KEY_SECRET=$(sed -n 's/^secret: *//p' <<<"$out" | head -1)
  if [ -z "$KEY_ID" ] || ! [[ "$KEY_SECRET" =~ ^[0-9a-f]{64}$ ]]; then
    echo "FAIL could not read the $1 key from the output of keys create (not shown: it holds the secret)"; exit 1
  fi
}
new_key analyst; analyst_id=$KEY_ID analyst_secret=$KEY_SECRET
new_key ingest;  ingest_id=$KEY_ID  ingest_secret=$KEY_SECRET
new_key admin;   admin_id=$KEY_ID   admin_secret=$KEY_SECRET
unset KEY_SECRET

# --- The server on loopback, stopped on exit (TERM, then KILL after 10 s).
"$BIN" serve --db "$RUN/store.sqlite" --keys "$keys" --host 127.0.0.1 --port 0 > "$RUN/serve.log" 2>&1 &
server=$!
stop_server() {
  kill -TERM "$server" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}
trap stop_server EXIT
wait_for_port "$RUN/serve.log" "$server"
base="http://127.0.0.1:$PORT"
echo "server on $base (fresh store and keys in $RUN)"

status=0
HANDZ_ANALYST_SECRET="$analyst_secret" HANDZ_INGEST_SECRET="$ingest_secret" HANDZ_ADMIN_SECRET="$admin_secret" \
  timeout 600 "$VENV/bin/python" Tests/Interop/served_dashboards_browser.py --base "$base" --binary "$BIN" \
    --db "$RUN/store.sqlite" --screenshots "$RUN/screenshots" --guide-screenshots "$RUN/guide" --from "$FROM" --to "$TO" \
    --analyst-id "$analyst_id" --ingest-id "$ingest_id" --admin-id "$admin_id" || status=$?
if ! kill -0 "$server" 2>/dev/null; then
  echo "the server exited during the run"; tail -20 "$RUN/serve.log"; exit 1
fi
echo "served dashboards check: $((SECONDS - started)) s; screenshots in $RUN/screenshots, server log $RUN/serve.log"
# The guides' pictures (HandzQuery documentation, "Trends") are this run's: HANDZ_UPDATE_SCREENSHOTS=1
# copies them into the catalog; otherwise the check only makes sure each picture the guides name was taken.
for picture in "$RUN"/guide/*.png; do
  [ -e "$picture" ] || { echo "no guide screenshot was taken"; status=1; break; }
  if [ "${HANDZ_UPDATE_SCREENSHOTS:-}" = 1 ]; then cp "$picture" Sources/HandzQuery/HandzQuery.docc/Resources/; fi
done
for named in $(grep -ho '([a-z-]*\.png)' Sources/HandzQuery/HandzQuery.docc/*.md | tr -d '()' | sort -u); do
  [ -e "$RUN/guide/$named" ] || { echo "the guides show $named, which this run did not take"; status=1; }
done
[ "$status" = 0 ] || { echo "served dashboards check failed (exit $status)"; exit "$status"; }
