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
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
PG_DATA="$RUN/pgdata"
PG_USER="$(id -un)"
as_pg() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  PG_USER=postgres
  as_pg() { runuser -u postgres -- "$@"; }
fi
PG_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
mkdir -p "$PG_DATA" "$RUN/pgsock" "$RUN/pglog"
chown -R "$PG_USER" "$PG_DATA" "$RUN/pgsock" "$RUN/pglog" 2>/dev/null || true
chmod 755 "$RUN"
stop_postgres() {
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 30 stop >/dev/null 2>&1 || true
}
trap stop_postgres EXIT
as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U handz --auth=trust --locale=C -E UTF8 >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -w -t 60 -l "$RUN/pglog/postgres.log" \
  -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $RUN/pgsock -c fsync=off -c work_mem=64MB" start >/dev/null
POSTGRES_DSN="host=127.0.0.1 port=$PG_PORT user=handz dbname=postgres"

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
