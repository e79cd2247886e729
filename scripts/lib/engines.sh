# Sourced by the engine scripts (check-engines.sh, check-cluster.sh): installs what they need
# when missing — the Debian PostgreSQL server and Java (for Spark), and a Python venv under
# $WORK_DIR with duckdb, chdb, pyspark, sqlglot and psycopg, pinned to their major versions.
# Sets VENV.

source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

engines_install() {
  local need=()
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
  python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
  apt_install "${need[@]}"
  VENV="$WORK_DIR/venv"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  if ! "$VENV/bin/python" -c "import duckdb, chdb, pyspark, sqlglot, psycopg" 2>/dev/null; then
    timeout 900 "$VENV/bin/pip" install -q --disable-pip-version-check \
      'duckdb>=1,<3' 'chdb>=3,<5' 'pyspark>=4,<5' 'sqlglot>=25,<31' 'psycopg[binary]>=3,<4'
  fi
}
