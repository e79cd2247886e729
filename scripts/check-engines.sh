#!/usr/bin/env bash
# Every funnel, every KPI and the crash-free sessions panel (session_share) give identical numbers
# on SQLite, PostgreSQL, DuckDB, ClickHouse (chdb) and Spark SQL, and the BigQuery SQL parses (sqlglot). Installs what it needs: the Debian
# PostgreSQL server when missing, and a Python venv with duckdb, chdb, pyspark, sqlglot and psycopg.
# PostgreSQL runs from the Debian binaries on 127.0.0.1 (a free port), as a non-root user, with its
# data under the work dir, and is stopped on exit. Run by scripts/test.sh (and so by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/workdir.sh
work_run_dir engines
started=$SECONDS
# --- Debian packages (PostgreSQL, Java for Spark) and the Python engines, when missing.
source scripts/lib/engines.sh
engines_install

# --- PostgreSQL on loopback, stopped on exit.
source scripts/lib/postgres.sh
postgres_start "$RUN"

# --- One simulated dataset, imported into a store of the SQLite log (the edits below are SQL on
# its events table), then upgraded to the segment engine, the default's, whose chunks the CLI
# answers from; the other engines load, and the SQLite dialect runs on, the events table
# `export sqlite` writes from it (issue 34 §5).
# The debug build scripts/test.sh has already made (a release build of the server's dependencies
# takes ten minutes on two cores; the dataset is small).
source scripts/lib/server.sh
handz_bin
"$BIN" simulate --installs 800 --days 42 --seed 20260301 --out "$RUN/events.ndjson" >/dev/null
"$BIN" import --engine sqlite --db "$RUN/store.sqlite" "$RUN/events.ndjson"
# A range over two catalog versions (docs/catalog-releases.md): installs on app 1.3.9 still run
# the catalog before the current one, so `--breakdown catalog_version` has two buckets.
sqlite3 "$RUN/store.sqlite" "UPDATE events SET catalog_version = '1.2.0' WHERE app_version = '1.3.9'"
# As retention does (issue 32 §6): 40 installs lose their first app_open; their first-seen time
# stays, so every engine must leave them out of every cohort alike.
sqlite3 "$RUN/store.sqlite" "DELETE FROM events WHERE rowid IN (SELECT e.rowid FROM events e JOIN (SELECT install_id, first_app_open_ms FROM install_first_seen ORDER BY install_id LIMIT 40) f ON f.install_id = e.install_id AND e.event_time_ms = f.first_app_open_ms WHERE e.event_name = 'app_open')"
# That edited the log outside its deletion journal: the column store the CLI reads is sealed
# again from nothing (issue 33).
"$BIN" layer --db "$RUN/store.sqlite" --rebuild >/dev/null
# The one-way upgrade an operator runs (issue 34 §4): every event moves into the column store.
"$BIN" layer --db "$RUN/store.sqlite" --engine segments >/dev/null
test "$(sqlite3 "$RUN/store.sqlite" 'SELECT COUNT(*) FROM events')" = 0
"$BIN" export sqlite --db "$RUN/store.sqlite" --out "$RUN/events.sqlite" >/dev/null

# ENGINES=postgres,duckdb (optional) limits the run to some engines while developing.
timeout 1500 "$VENV/bin/python" Tests/Interop/engine_agreement.py --binary "$BIN" --db "$RUN/store.sqlite" --events "$RUN/events.sqlite" --work "$RUN" \
  ${ENGINES:+--engines "$ENGINES"} \
  --postgres "$POSTGRES_DSN" --from 2026-03-01 --to 2026-04-12 --narrow-from 2026-03-08T06:30:00Z --narrow-to 2026-03-29
echo "engine harness: $((SECONDS - started)) s"
