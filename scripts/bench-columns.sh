#!/usr/bin/env bash
# The column engine against its peer (issue 33; not run in CI): a simulated store of INSTALLS
# installs × DAYS days imported (and so sealed into its column store), then F0 as whole
# `funnel` processes on the column store (--via columns) and on SQLite (--via walk), and DuckDB
# running the project's own generated F0 SQL on the same events in a DuckDB table (two threads,
# warm, best of five), in the same run. Prints the column store's bytes per event. Figures go to
# BENCHMARKS.md ("The column store").
#   scripts/bench-columns.sh [INSTALLS] [DAYS]     (default 20000 × 30 ≈ 1.46 M events)
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALLS="${1:-20000}" DAYS="${2:-30}"
source scripts/lib/workdir.sh
work_run_dir "bench-columns-$INSTALLS-$DAYS" keep
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import duckdb" 2>/dev/null || "$VENV/bin/pip" install -q 'duckdb>=1,<3'
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null; }

swift build -c release --product handz-analytics >/dev/null
BIN="$(swift build -c release --show-bin-path)/handz-analytics"
FROM=2026-03-01 TO=$(date -u -d "2026-03-01 + $DAYS days" +%F)

if [ ! -s "$RUN/store.sqlite" ]; then
  "$BIN" simulate --installs "$INSTALLS" --days "$DAYS" --seed 1 --out "$RUN/events.ndjson"
  /usr/bin/time -f "import (and seal): %e s, %M KB peak" "$BIN" import --engine sqlite --db "$RUN/store.sqlite" "$RUN/events.ndjson" >/dev/null
  rm -f "$RUN/events.ndjson"
fi
events=$(sqlite3 "$RUN/store.sqlite" 'SELECT COUNT(*) FROM events')
bytes=$(du -sb "$RUN/store.sqlite.columns" | cut -f1)
echo "stored events: $events; column store: $bytes bytes, $(echo "scale=1; $bytes / $events" | bc) bytes per event"

for via in columns walk; do
  "$BIN" funnel F0 --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json --via "$via" > "$RUN/f0.$via.json"
done
cmp -s "$RUN/f0.columns.json" "$RUN/f0.walk.json" && echo "F0: the same answer on the column store and on SQLite" || { echo "F0 answers DIFFER"; exit 1; }
for via in columns walk; do
  /usr/bin/time -f "F0 --via $via: %e s wall, %M KB peak (whole process)" "$BIN" funnel F0 --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json --via "$via" >/dev/null
done

"$BIN" sql funnel F0 --dialect duckdb --from "$FROM" --to "$TO" > "$RUN/funnel.duckdb.sql"
if [ ! -s "$RUN/events.duckdb" ]; then
  columns="lower(substr(hex(event_id),1,8)||'-'||substr(hex(event_id),9,4)||'-'||substr(hex(event_id),13,4)||'-'||substr(hex(event_id),17,4)||'-'||substr(hex(event_id),21,12)) AS event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties"
  sqlite3 -header -csv "$RUN/store.sqlite" "SELECT $columns FROM events" > "$RUN/events.csv"
  "$VENV/bin/python" -c "
import duckdb
db = duckdb.connect('$RUN/events.duckdb')
db.execute(\"CREATE TABLE events AS SELECT * FROM read_csv('$RUN/events.csv', header=true, types={'event_time_ms': 'BIGINT', 'received_time_ms': 'BIGINT', 'user_id': 'VARCHAR', 'properties': 'VARCHAR', 'build_number': 'VARCHAR'})\")"
  rm -f "$RUN/events.csv"
fi
"$VENV/bin/python" - "$RUN/events.duckdb" "$RUN/funnel.duckdb.sql" <<'PY'
import duckdb, sys, time
db = duckdb.connect(sys.argv[1], read_only=True)
db.execute("SET threads = 2")
sql = open(sys.argv[2]).read()
db.execute(sql).fetchall()  # warm
best = min((lambda: (lambda t: (db.execute(sql).fetchall(), time.monotonic() - t)[1])(time.monotonic()))() for _ in range(5))
print(f"duckdb F0 (generated SQL, DuckDB table, 2 threads, warm): {best:.3f} s best of 5")
PY
