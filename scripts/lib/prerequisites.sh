# Sourced by scripts/test.sh: everything the checks after the Swift build need, installed in one
# go so that it can run in the background while the build uses both cores (downloads and unpacking
# wait on the network and the disk, not the CPU). Each check script still installs what it needs
# when it is run alone; after this they find it there.
#
#   source scripts/lib/prerequisites.sh
#   prerequisites_for_build    # the headers `swift build` needs (SQLite, zlib, zstd); in the foreground
#   prerequisites_install      # Debian packages and both Python virtual environments, each step bounded
#
# The Python packages are the union of what the checks pin (each script names its own, with the
# same bounds): the engines (check-engines.sh, check-cluster.sh), the dashboards' image and browser
# checks, the JSON Schema agreement, and schemathesis in a venv of its own (its pins conflict with
# nothing, but it is upgraded on its own schedule).

source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

prerequisites_for_build() {
  local need=()
  for pkg in libsqlite3-dev zlib1g-dev libzstd-dev sqlite3; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  apt_install "${need[@]}"
}

prerequisites_install() {
  local need=()
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
  [ -x /usr/bin/chromium ] || need+=(chromium)
  [ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
  python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
  command -v openssl >/dev/null 2>&1 || need+=(openssl)
  command -v curl >/dev/null 2>&1 || need+=(curl)
  command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
  command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
  apt_install "${need[@]}"

  local venv="$WORK_DIR/venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  if ! "$venv/bin/python" -c "import duckdb, chdb, pyspark, sqlglot, psycopg, PIL, selenium, jsonschema" 2>/dev/null; then
    timeout 900 "$venv/bin/pip" install -q --disable-pip-version-check \
      'duckdb>=1,<3' 'chdb>=3,<5' 'pyspark>=4,<5' 'sqlglot>=25,<31' 'psycopg[binary]>=3,<4' \
      'Pillow>=10,<12' 'selenium>=4.15,<5' 'jsonschema==4.*'
  fi
  local schemathesis="$WORK_DIR/venv-schemathesis"
  [ -x "$schemathesis/bin/python" ] || python3 -m venv "$schemathesis"
  timeout 900 "$schemathesis/bin/pip" install -q --disable-pip-version-check "schemathesis==4.32.5" "pytest==9.*"
}
