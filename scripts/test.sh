#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what the tests need (Debian packages with apt-get,
# Python tools in a virtual environment), then the Swift test suite, the catalog lint and the
# cross-implementation checks. `.ci/run` runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export WORK_DIR="${WORK_DIR:-$PWD/.build-ci}"
mkdir -p "$WORK_DIR"

# Debian packages the build and the tests use, installed only when missing: the system SQLite
# and zlib (headers for the build), the sqlite3 shell, the PostgreSQL server (the store tests run
# a throwaway cluster on loopback), and venv for the Python checks.
need=()
for pkg in libsqlite3-dev zlib1g-dev sqlite3; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}"
fi

echo "== swift build"
swift build
echo "== catalog lint"
swift run handz-analytics catalog lint
echo "== the README's module map matches Package.swift"
scripts/module-map.sh --check
echo "== swift test, instrumented for line coverage (its own build directory: the scripts below use .build's binaries)"
swift test --enable-code-coverage --scratch-path .build-cov
echo "== the DocC catalogs (Sources/*/*.docc) build with swift-docc-plugin, warnings and broken links as errors"
scripts/docs.sh
echo "== the parsers that read attacker bytes, fuzzed (libFuzzer, 45 s each; FUZZING.md)"
scripts/fuzz.sh 45
echo "== JSON Schema export agrees with the validator"
scripts/check-jsonschema-agreement.sh
echo "== an app that uses only the client: resolved packages within the budget, builds, its batch is stored"
scripts/check-consumer.sh
echo "== the HTTP contract (openapi.yaml) against the live server, with schemathesis"
scripts/check-openapi.sh
echo "== funnels and KPIs agree on SQLite, PostgreSQL, DuckDB, ClickHouse and Spark"
scripts/check-engines.sh
echo "== the CH33 §7 dashboards: report screenshots in headless Chromium, Grafana queries on PostgreSQL and ClickHouse"
scripts/check-dashboards.sh
echo "== the dashboards served live by serve, in Chromium through chromium-driver (Selenium): login, ranges, comparison, breakdown, the funnel explorer"
scripts/check-served-dashboards.sh
echo "== two ingest nodes on one PostgreSQL store (kill -9 mid-load: exactly once), key rotation, the lake on Spark, ClickHouse and DuckDB"
scripts/check-cluster.sh
echo "== line coverage per module (swift test above; floors in scripts/coverage.sh)"
scripts/coverage.sh .build-cov
echo "== all tests passed"
