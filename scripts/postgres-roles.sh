#!/usr/bin/env bash
# Applies scripts/postgres-roles.sql to one database: the handz_admin, handz_ingest and
# handz_analyst roles and their grants, for CH33 §10: "store analytics data with least privilege;
# restrict internal access". Idempotent; its header gives the setup order.
#
#   scripts/postgres-roles.sh DATABASE_URL_OR_NAME [psql args]
#
# DATABASE_URL_OR_NAME is what psql's -d takes: a database name (host, port and user from the
# PG* variables or the psql args) or a URL, e.g. postgres://postgres@db.internal/handz. Run it as
# a superuser (creating roles needs one, or CREATEROLE); handz_admin can re-run it once the roles
# exist and it owns the tables.
#
# No password on the command line (argv shows in `ps` and shell history): psql takes it from
# PGPASSWORD, ~/.pgpass or a prompt, as libpq does. A URL or conninfo holding one is refused.
set -euo pipefail

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
  echo "usage: $0 DATABASE_URL_OR_NAME [psql args]" >&2
  exit 2
fi
database="$1"
shift

# postgres://user:secret@host/db, or password=… in a conninfo string or URL query.
if [[ "$database" =~ ://[^/@]*:[^/@]*@ || "$database" =~ (^|[[:space:]?&])password= ]]; then
  echo "$0: refusing a password in the connection string; use PGPASSWORD or ~/.pgpass" >&2
  exit 2
fi

sql="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/postgres-roles.sql"
# -X: no ~/.psqlrc, so the run does not depend on who runs it.
exec "${PSQL:-psql}" -X -v ON_ERROR_STOP=1 -d "$database" "$@" -f "$sql"
