#!/usr/bin/env bash
# The CH33 §7 dashboards work end to end (issue 6): a simulated dataset is imported, the report is
# rendered (`dashboard render`), every page is screenshotted with headless Chromium (the Debian
# `chromium` package, installed when missing) and checked not blank, and the Grafana export of
# both dialects is parsed and each of its queries run — macros replaced by the concrete range —
# on PostgreSQL (loopback, started and stopped here like check-engines.sh) and ClickHouse (chdb).
# Every step is time-bounded. Run by scripts/test.sh (and so by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/workdir.sh
source scripts/lib/packages.sh
work_run_dir dashboards
mkdir -p "$RUN/screenshots"
started=$SECONDS

# --- Debian packages: Chromium, the PostgreSQL server, venv (installed only when missing).
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
apt_install "${need[@]}"

# --- Python: the engines' venv of check-engines.sh, plus Pillow for the screenshots.
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if ! "$VENV/bin/python" -c "import chdb, psycopg, PIL" 2>/dev/null; then
  timeout 900 "$VENV/bin/pip" install -q --disable-pip-version-check 'chdb>=3,<5' 'psycopg[binary]>=3,<4' 'Pillow>=10,<12'
fi

# --- PostgreSQL on loopback, stopped on exit.
source scripts/lib/postgres.sh
postgres_start "$RUN"

# --- Simulate, import, render (the debug build scripts/test.sh has already made).
source scripts/lib/server.sh
handz_bin
FROM=2026-03-01 TO=2026-03-29
timeout 300 "$BIN" simulate --installs 600 --days 28 --seed 20260301 --start "$FROM" --out "$RUN/events.ndjson" >/dev/null
timeout 300 "$BIN" import --db "$RUN/store.sqlite" "$RUN/events.ndjson"
timeout 300 "$BIN" dashboard render --db "$RUN/store.sqlite" --out "$RUN/report" --from "$FROM" --to "$TO"
for dialect in postgres clickhouse; do
  timeout 120 "$BIN" dashboard export grafana --dialect "$dialect" --out "$RUN/grafana" >/dev/null
done

# --- Screenshots: one PNG per page, each bounded (Chromium can hang without a display).
for page in "$RUN"/report/*.html; do
  name="$(basename "$page" .html)"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$RUN/chromium-profile" --window-size=1100,2400 \
    --screenshot="$RUN/screenshots/$name.png" "file://$page" >/dev/null 2>&1 || true
  [ -s "$RUN/screenshots/$name.png" ] || { echo "FAIL no screenshot of $name"; exit 1; }
done

# The store is a segment store (the default): its events reach the other engines as an events table.
rm -f "$RUN/events.sqlite"
"$BIN" export sqlite --db "$RUN/store.sqlite" --out "$RUN/events.sqlite" > /dev/null
timeout 900 "$VENV/bin/python" Tests/Interop/dashboards_check.py --binary "$BIN" --db "$RUN/events.sqlite" --work "$RUN" \
  --screenshots "$RUN/screenshots" --grafana "$RUN/grafana" --report "$RUN/report" --postgres "$POSTGRES_DSN" --from "$FROM" --to "$TO"
echo "dashboards check: $((SECONDS - started)) s; report in $RUN/report, screenshots in $RUN/screenshots"
