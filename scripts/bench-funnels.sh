#!/usr/bin/env bash
# Funnel benchmark (not run in CI): simulate ~10 million events, import them into the SQLite
# store, run F0 on SQLite (`handz-analytics funnel`: the chain walk, then `--via sql`), then the
# same F0 SQL on DuckDB, ClickHouse (chdb) and Spark SQL, and a hand-written ClickHouse
# windowFunnel query. Figures go to BENCHMARKS.md. Usage: scripts/bench-funnels.sh [INSTALLS] (default 140000 ≈ 10M events).
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALLS="${1:-140000}"
source scripts/lib/workdir.sh
work_run_dir bench-funnels keep
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import duckdb, chdb, pyspark" 2>/dev/null || \
  "$VENV/bin/pip" install -q 'duckdb>=1,<3' 'chdb>=3,<5' 'pyspark>=4,<5'
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null; }

swift build -c release --product handz-analytics >/dev/null
BIN="$(swift build -c release --show-bin-path)/handz-analytics"
FROM=2026-03-01 TO=2026-04-12
t() { local start=$SECONDS; "$@"; echo "  ($((SECONDS - start)) s)" >&2; }

if [ ! -s "$RUN/store.sqlite" ]; then
  echo "simulate: $INSTALLS installs, 42 days" >&2
  t "$BIN" simulate --installs "$INSTALLS" --days 42 --seed 1 --out "$RUN/events.ndjson"
  echo "import" >&2
  t "$BIN" import --engine sqlite --db "$RUN/store.sqlite" "$RUN/events.ndjson"
  rm -f "$RUN/events.ndjson"
fi
echo "stored events: $(sqlite3 "$RUN/store.sqlite" 'SELECT COUNT(*) FROM events')" >&2

for run in 1 2 3; do
  start=$(date +%s.%N)
  "$BIN" funnel F0 --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json > "$RUN/f0.sqlite.json"
  echo "{\"engine\": \"sqlite F0 run $run\", \"seconds\": $(echo "$(date +%s.%N) - $start" | bc)}"
done
cat "$RUN/f0.sqlite.json"; echo
# The generated SQLite SQL on the same store (what `sql funnel F0 --dialect sqlite` prints).
start=$(date +%s.%N)
"$BIN" funnel F0 --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json --via sql > "$RUN/f0.sqlite-sql.json"
echo "{\"engine\": \"sqlite F0 --via sql\", \"seconds\": $(echo "$(date +%s.%N) - $start" | bc)}"
cmp -s "$RUN/f0.sqlite.json" "$RUN/f0.sqlite-sql.json" && echo "  (same answer as the chain walk)" >&2 || echo "  DIFFERENT answer from the chain walk" >&2

for dialect in duckdb clickhouse spark; do
  "$BIN" sql funnel F0 --dialect "$dialect" --from "$FROM" --to "$TO" > "$RUN/funnel.$dialect.sql"
  "$BIN" sql ddl --dialect "$dialect" > "$RUN/ddl.$dialect.sql"
done
# windowFunnel counts, per install, the longest prefix of the steps matched in order within the
# window from a step-1 event; entries are limited to [from, to) as in our semantics. It differs on
# same-millisecond ties (no event_id tie-break) and reports no medians.
cat > "$RUN/windowfunnel.sql" <<SQL
SELECT level, count() AS actors FROM (
  SELECT install_id, windowFunnel(604800000)(toUInt64(event_time_ms),
    event_name = 'app_open' AND event_time_ms < $(date -u -d "$TO" +%s)000,
    event_name = 'onboarding_viewed',
    event_name IN ('flow_builder_opened', 'library_viewed'),
    event_name = 'flow_draft_created',
    event_name = 'flow_saved_success') AS level
  FROM events
  WHERE event_name IN ('app_open', 'onboarding_viewed', 'flow_builder_opened', 'library_viewed', 'flow_draft_created', 'flow_saved_success')
    AND event_time_ms >= $(date -u -d "$FROM" +%s)000 AND event_time_ms < $(( $(date -u -d "$TO" +%s) + 604800 ))000
  GROUP BY install_id
) GROUP BY level ORDER BY level
SQL

if [ ! -s "$RUN/events.parquet" ]; then
  echo "export to Parquet" >&2
  columns="lower(substr(hex(event_id),1,8)||'-'||substr(hex(event_id),9,4)||'-'||substr(hex(event_id),13,4)||'-'||substr(hex(event_id),17,4)||'-'||substr(hex(event_id),21,12)) AS event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties"
  sqlite3 -header -csv "$RUN/store.sqlite" "SELECT $columns FROM events" > "$RUN/events.csv"
  "$VENV/bin/python" -c "
import duckdb
duckdb.execute(\"COPY (SELECT * FROM read_csv('$RUN/events.csv', header=true, types={'event_time_ms': 'BIGINT', 'received_time_ms': 'BIGINT', 'user_id': 'VARCHAR', 'properties': 'VARCHAR', 'build_number': 'VARCHAR'})) TO '$RUN/events.parquet' (FORMAT parquet)\")"
  rm -f "$RUN/events.csv"
fi
"$VENV/bin/python" scripts/bench/funnel_engines.py --parquet "$RUN/events.parquet" --sql-dir "$RUN" --work "$RUN" --window-funnel "$RUN/windowfunnel.sql"
