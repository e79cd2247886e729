# Sourced by the test scripts: a throwaway PostgreSQL server from the Debian binaries, on
# 127.0.0.1 and a free port, data under a work directory, run as a non-root user, stopped on exit.
# As root the server runs as `postgres`, which must be able to reach its directories: when the
# work directory sits under one it cannot enter (a clone in a private `mktemp -d`), the server's
# files go to a fresh directory under /tmp instead, removed on stop.
#
#   source scripts/lib/postgres.sh
#   postgres_start DIR        # sets PG_PORT, PG_BIN, POSTGRES_DSN (libpq) and POSTGRES_URL (postgres://)
#   postgres_stop             # also registered as an EXIT trap by postgres_start
#   postgres_restart          # a fast shutdown (connections cut) and a start with the same options
#   POSTGRES_FSYNC=on         # before postgres_start: durable commits (benchmarks); tests run with fsync off
#
# Needs the `postgresql` package (the scripts install it when missing).

postgres_as() { "$@"; }

postgres_start() {
  local dir="$1"
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  PG_DATA="$dir/pgdata"
  local pg_user
  pg_user="$(id -un)"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    pg_user=postgres
    postgres_as() { runuser -u postgres -- "$@"; }
  fi
  PG_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  mkdir -p "$dir"
  chmod 755 "$dir"
  PG_OWN_ROOT=""
  if [ "$pg_user" != "$(id -un)" ] && ! runuser -u "$pg_user" -- test -x "$dir"; then
    PG_OWN_ROOT="$(mktemp -d /tmp/handz-postgres.XXXXXX)"
    chmod 755 "$PG_OWN_ROOT"
    dir="$PG_OWN_ROOT"
    PG_DATA="$dir/pgdata"
  fi
  mkdir -p "$PG_DATA" "$dir/pgsock" "$dir/pglog"
  chown -R "$pg_user" "$PG_DATA" "$dir/pgsock" "$dir/pglog" 2>/dev/null || true
  [ "${POSTGRES_KEEP_TRAP:-}" = 1 ] || trap postgres_stop EXIT
  postgres_as "$PG_BIN/initdb" -D "$PG_DATA" -U handz --auth=trust --locale=C -E UTF8 >/dev/null
  postgres_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -w -t 60 -l "$dir/pglog/postgres.log" \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $dir/pgsock -c fsync=${POSTGRES_FSYNC:-off} -c work_mem=64MB -c max_connections=300" start >/dev/null
  POSTGRES_DSN="host=127.0.0.1 port=$PG_PORT user=handz dbname=postgres"
  POSTGRES_URL="postgres://handz@127.0.0.1:$PG_PORT/postgres"
}

postgres_restart() {
  # pg_ctl restart reuses the options the server was started with (postmaster.opts).
  postgres_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 -l "$(dirname "$PG_DATA")/pglog/postgres.log" restart >/dev/null
}

postgres_stop() {
  [ -n "${PG_DATA:-}" ] && postgres_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 30 stop >/dev/null 2>&1 || true
  [ -n "${PG_OWN_ROOT:-}" ] && rm -rf "$PG_OWN_ROOT" || true
}
