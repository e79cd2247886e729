# A throwaway PostgreSQL cluster on 127.0.0.1 (a free port) from the Debian binaries, as a
# non-root user, with its data under a work directory. Sourced by check-engines.sh and
# check-dashboards.sh: `start_postgres DIR` sets POSTGRES_DSN; `stop_postgres` stops it (bounded).
start_postgres() {
  local run="$1"
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  PG_DATA="$run/pgdata"
  PG_USER="$(id -un)"
  as_pg() { "$@"; }
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    PG_USER=postgres
    as_pg() { runuser -u postgres -- "$@"; }
  fi
  PG_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  mkdir -p "$PG_DATA" "$run/pgsock" "$run/pglog"
  chown -R "$PG_USER" "$PG_DATA" "$run/pgsock" "$run/pglog" 2>/dev/null || true
  chmod 755 "$run"
  as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U handz --auth=trust --locale=C -E UTF8 >/dev/null
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -w -t 60 -l "$run/pglog/postgres.log" \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $run/pgsock -c fsync=off -c work_mem=64MB" start >/dev/null
  POSTGRES_DSN="host=127.0.0.1 port=$PG_PORT user=handz dbname=postgres"
}

stop_postgres() {
  [ -n "${PG_DATA:-}" ] || return 0
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 30 stop >/dev/null 2>&1 || true
}
