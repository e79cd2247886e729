#!/usr/bin/env bash
# Every funnel and every KPI gives identical numbers on SQLite, PostgreSQL, DuckDB, ClickHouse
# (chdb) and Spark SQL, and the BigQuery SQL parses (sqlglot). Installs what it needs: the Debian
# PostgreSQL server when missing, and a Python venv with duckdb, chdb, pyspark, sqlglot and psycopg.
# PostgreSQL runs from the Debian binaries on 127.0.0.1 (a free port), as a non-root user, with its
# data under the work dir, and is stopped on exit. Run by scripts/test.sh (and so by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK_DIR="${WORK_DIR:-$PWD/.build-ci}"
mkdir -p "$WORK_DIR"
WORK_DIR="$(cd "$WORK_DIR" && pwd)"
RUN="$WORK_DIR/engines"
rm -rf "$RUN"
mkdir -p "$RUN"
started=$SECONDS
sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"

# --- Debian packages: PostgreSQL server, Java for Spark (installed only when missing).
need=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi

# --- Python engines, pinned to their major versions.
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if ! "$VENV/bin/python" -c "import duckdb, chdb, pyspark, sqlglot, psycopg" 2>/dev/null; then
  timeout 900 "$VENV/bin/pip" install -q --disable-pip-version-check \
    'duckdb>=1,<3' 'chdb>=3,<5' 'pyspark>=4,<5' 'sqlglot>=25,<31' 'psycopg[binary]>=3,<4'
fi

# --- PostgreSQL on loopback, stopped on exit.
source scripts/lib/postgres.sh
start_postgres "$RUN"
trap stop_postgres EXIT

# --- One simulated dataset, imported into the SQLite store.
# The debug build scripts/test.sh has already made (a release build of the server's dependencies
# takes ten minutes on two cores; the dataset is small).
swift build --product handz-analytics >/dev/null
BIN="$(swift build --show-bin-path)/handz-analytics"
"$BIN" simulate --installs 800 --days 42 --seed 20260301 --out "$RUN/events.ndjson" >/dev/null
"$BIN" import --db "$RUN/store.sqlite" "$RUN/events.ndjson"

timeout 1500 "$VENV/bin/python" Tests/Interop/engine_agreement.py --binary "$BIN" --db "$RUN/store.sqlite" --work "$RUN" \
  --postgres "$POSTGRES_DSN" --from 2026-03-01 --to 2026-04-12 --narrow-from 2026-03-08T06:30:00Z --narrow-to 2026-03-29
echo "engine harness: $((SECONDS - started)) s"
