#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what the tests need (Debian packages with apt-get,
# Python tools in a virtual environment), then the Swift test suite, the catalog lint and the
# cross-implementation checks. `.ci/run` runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export WORK_DIR="${WORK_DIR:-$PWD/.build-ci}"
mkdir -p "$WORK_DIR"

# Debian packages the tests use, installed only when missing.
need=()
for pkg in python3-venv; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ] && ! python3 -m venv --help >/dev/null 2>&1; then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq "${need[@]}"
fi

echo "== swift build"
swift build
echo "== catalog lint"
swift run handz-analytics catalog lint
echo "== swift test"
swift test
echo "== JSON Schema export agrees with the validator"
scripts/check-jsonschema-agreement.sh
echo "== funnels and KPIs agree on SQLite, PostgreSQL, DuckDB, ClickHouse and Spark"
scripts/check-engines.sh
echo "== all tests passed"
