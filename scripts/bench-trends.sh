#!/usr/bin/env bash
# Trends (issue 35 §1; not run in CI): on a simulated segment store of INSTALLS installs × DAYS days,
# each trend below as a whole `trend` process on the column engine (one run to warm, then RUNS
# timed: min and median), and DuckDB running the project's own generated SQL for it (`sql trend
# --dialect duckdb`) on the same events in a DuckDB table, two threads, warm, in the same run.
# The events reach DuckDB through `export sqlite`. Figures go to BENCHMARKS.md ("Trends").
#   scripts/bench-trends.sh [INSTALLS] [DAYS] [RUNS]     (default 100000 × 30, 5 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALLS="${1:-100000}" DAYS="${2:-30}" RUNS="${3:-5}"
source scripts/lib/workdir.sh
work_run_dir "bench-trends-$INSTALLS-$DAYS" keep
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import duckdb" 2>/dev/null || "$VENV/bin/pip" install -q 'duckdb>=1,<3'
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null; }

swift build -c release --product handz-analytics >/dev/null
BIN="$(swift build -c release --show-bin-path)/handz-analytics"
FROM=2026-03-01 TO=$(date -u -d "2026-03-01 + $DAYS days" +%F)

if [ ! -d "$RUN/store.sqlite.segments" ]; then
  rm -rf "$RUN"/store.sqlite*
  "$BIN" simulate --installs "$INSTALLS" --days "$DAYS" --seed 7 --start "$FROM" --out "$RUN/events.ndjson"
  /usr/bin/time -f "import: %e s, %M KB peak" "$BIN" import --db "$RUN/store.sqlite" "$RUN/events.ndjson" >/dev/null
  rm -f "$RUN/events.ndjson"
fi
if [ ! -s "$RUN/events.duckdb" ]; then
  rm -f "$RUN/events-table.sqlite"
  "$BIN" export sqlite --db "$RUN/store.sqlite" --out "$RUN/events-table.sqlite"
  columns="lower(substr(hex(event_id),1,8)||'-'||substr(hex(event_id),9,4)||'-'||substr(hex(event_id),13,4)||'-'||substr(hex(event_id),17,4)||'-'||substr(hex(event_id),21,12)) AS event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties"
  sqlite3 -header -csv "$RUN/events-table.sqlite" "SELECT $columns FROM events" > "$RUN/events.csv"
  "$VENV/bin/python" -c "
import duckdb
db = duckdb.connect('$RUN/events.duckdb')
db.execute(\"CREATE TABLE events AS SELECT * FROM read_csv('$RUN/events.csv', header=true, types={'event_time_ms': 'BIGINT', 'received_time_ms': 'BIGINT', 'user_id': 'VARCHAR', 'properties': 'VARCHAR', 'build_number': 'VARCHAR'})\")"
  rm -f "$RUN/events.csv" "$RUN/events-table.sqlite"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), commit $(git rev-parse --short HEAD)"
"$BIN" stats --db "$RUN/store.sqlite" | python3 -c "import json,sys; print('stored events:', json.load(sys.stdin)['stored_events'])"

trends=(
  "--series app_open --measure installs --interval day"
  "--series app_open,screen_viewed --measure events --interval week"
  "--series screen_viewed --measure users --interval day --breakdown user_state"
  "--series app_open[launch_source=push|deep_link],flow_saved_success|flow_draft_created --measure sessions --interval month"
)
for trend in "${trends[@]}"; do
  # shellcheck disable=SC2086
  "$BIN" sql trend $trend --from "$FROM" --to "$TO" --dialect duckdb > "$RUN/trend.duckdb.sql"
  # shellcheck disable=SC2086
  "$BIN" trend $trend --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json > /dev/null
  times=()
  for _ in $(seq "$RUNS"); do
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    "$BIN" trend $trend --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json > /dev/null
    times+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "trend $trend: column engine, whole process: min $(echo "$sorted" | head -1) ms, median $(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p") ms (n=$RUNS)"
  "$VENV/bin/python" scripts/bench/duckdb_warm.py "$RUN/events.duckdb" "$RUN/trend.duckdb.sql" "$RUNS"
done
