#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what the tests need (Debian packages with apt-get,
# Python tools in virtual environments), builds once, then runs the Swift test suite, the catalog
# lint, the docs, the fuzzers and the cross-implementation checks. `.ci/run` runs exactly this.
#
# One build feeds everything (issue 32 §10): `swift build --build-tests --enable-code-coverage`
# in `.build`, so the tests run instrumented without a second build, and every script below runs
# that same `handz-analytics` (HANDZ_BIN). The installs run in the background during the build;
# the consumer app, the fuzzers and the engines' agreement run as a second lane beside the other
# checks. The time of every stage is printed at the end, failed or not (scripts/lib/stages.sh).
# Budget: 35 min on a 2-core machine; each long check is bounded by its own timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
export WORK_DIR="${WORK_DIR:-$PWD/.build-ci}"
mkdir -p "$WORK_DIR"
WORK_DIR="$(cd "$WORK_DIR" && pwd)"
source scripts/lib/stages.sh
source scripts/lib/prerequisites.sh
stages_init

stage "the headers the build needs (SQLite, zlib, zstd)" prerequisites_for_build
stage_start "install: Debian packages and Python tools for the checks" prerequisites_install
# No debug information (DWARF): nothing here reads it (coverage has its own sections) and it is
# most of what the linker writes. The index store stays: on Linux, `swift test` finds the XCTest
# and Swift Testing entry points through it, and a build without it fails at test discovery.
BUILD_FLAGS=(--enable-code-coverage -debug-info-format none)
stage "swift build: every target and the tests, once, instrumented for coverage" \
  swift build --build-tests "${BUILD_FLAGS[@]}"
BIN_DIR="$(swift build "${BUILD_FLAGS[@]}" --show-bin-path)"
export HANDZ_BIN="$BIN_DIR/handz-analytics"
stage "catalog lint" "$HANDZ_BIN" catalog lint
stage "the README's module map matches Package.swift" scripts/module-map.sh --check
# Every suite but FixtureAppBuildTests, which is a SwiftPM build of the lint fixture app: it runs
# below, after the coverage and the docs, in this build directory (see its stage).
stage "swift test (instrumented; the build above), but the lint fixture app's build" \
  swift test --skip-build --enable-code-coverage --skip FixtureAppBuildTests
stage "line coverage per module (floors in scripts/coverage.sh)" scripts/coverage.sh .build
stage "the DocC catalogs, from the built modules' symbols, warnings as errors" scripts/docs.sh --built

# From here on the instrumented binaries write their profiles to the work directory, not into
# each check's current directory (the table above is already made).
export LLVM_PROFILE_FILE="$WORK_DIR/profiles/%m.profraw"
stage_wait "install: Debian packages and Python tools for the checks"

# Two lanes from here: most checks below wait on one Python process, a server, a browser or a JVM
# at a time, so the second core runs the other lane — the consumer app's build, the fuzzers (one
# core each for their fixed time), then the engines' agreement — while this one runs the rest.
# The lanes are balanced on measured times: on 16eb728's clean clone (2026-12-07) this lane's
# checks took 804 s and the second's 962 s with the lint fixture app in it, so the fixture app
# (264 s) and the consumer check (179 s) changed places. Each check starts its own PostgreSQL on
# a free port and works in its own directory under WORK_DIR; nothing but the fixture app's build
# uses `.build`.
second_lane() {
  timed "an app that uses only the client: resolved packages within the budget, builds, its batch is stored" scripts/check-consumer.sh || return
  timed "fuzz: the parsers that read attacker bytes (libFuzzer, 10 s each; FUZZING.md)" scripts/fuzz.sh 10 || return
  timed "funnels and KPIs agree on SQLite, PostgreSQL, DuckDB, ClickHouse and Spark" scripts/check-engines.sh || return
}
stage_start "lane: the consumer app, the fuzzers, the engines' agreement" second_lane
stage "JSON Schema export agrees with the validator" scripts/check-jsonschema-agreement.sh
# The fixture app builds in this build directory with this build's flags, so swift-syntax and
# the lint tool are already built: its two builds take about 40 s; the command plugin's run
# (`swift package handz-lint`) gets the same flags but coverage, which `swift package` does not
# take: the coverage setting is part of the build parameters, so it still builds swift-syntax
# and the tool again (98 s of the stage's 133 s on 30f4e2e's clean clone; without coverage, in
# a plain build directory, the run reuses them and takes 9 s). Its build rewrites the
# directory's build plan, so it runs after the tests, coverage and docs, which read the plan;
# and from the test binary itself, since `swift test` would hold the directory's lock.
stage "the lint plugin fails the fixture app's build in place (FixtureAppBuildTests)" \
  env HANDZ_FIXTURE_SCRATCH="$PWD/.build" HANDZ_FIXTURE_BUILD_FLAGS="${BUILD_FLAGS[*]}" \
  "$BIN_DIR/HandzAnalyticsPackageTests.xctest" --testing-library swift-testing --filter FixtureAppBuildTests
stage "the HTTP contract (openapi.yaml) against the live server, with schemathesis" scripts/check-openapi.sh
stage "the dashboards served live, in Chromium through chromium-driver (Selenium)" scripts/check-served-dashboards.sh
# The report's screenshots and the Grafana queries (about 17 s): in this lane since 2026-12-06,
# when the second lane was still the longer one after the fuzzers' 10 s and the engines' faster
# Spark (measured stage by stage on this machine: this lane's checks about 530 s, the second's
# about 590 s with it).
stage "the CH33 §7 dashboards: report screenshots in headless Chromium, Grafana queries on PostgreSQL and ClickHouse" scripts/check-dashboards.sh
stage "the deployment guide: systemd units, serve from its settings file behind nginx with TLS, Prometheus and the operator's dashboard, backup, upgrade and rollback" scripts/check-deployment.sh
stage "two ingest nodes on one PostgreSQL store (kill -9 mid-load: exactly once), key rotation, the lake on Spark, ClickHouse and DuckDB" \
  scripts/check-cluster.sh
stage_wait "lane: the consumer app, the fuzzers, the engines' agreement"
echo "== all tests passed"
