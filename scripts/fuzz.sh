#!/usr/bin/env bash
# Fuzzes the parsers that read attacker bytes with libFuzzer (swiftc -sanitize=fuzzer,address, from
# the Swift toolchain on Linux): the event validator, the batch envelope, gzip with its output
# limit, the `Authorization` header, the QA stream reader, and the catalog and QA rule YAML loaders.
# Each target but the last is compiled from the module sources it needs (the core is pure Swift, so
# no package build is involved) plus the client's generated catalog snapshot; catalog_yaml is the
# package fuzz/CatalogYAML, built with SwiftPM so Yams and its C parser are instrumented too. Each
# is run for SECONDS on its seed corpus (fuzz/corpus/TARGET) after replaying every
# input in fuzz/regressions/TARGET. A crash, a sanitizer report, a broken invariant or a hang
# (10 s for one input) fails the script; the input is left in the run directory.
#
#   scripts/fuzz.sh [SECONDS] [TARGET ...]     (default 45 s each; every target)
#
# Run by scripts/test.sh (and so by .ci/run) with 30 s each, beside the checks that wait on servers; FUZZING.md records a longer campaign.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/workdir.sh
work_run_dir fuzz
seconds="${1:-45}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(validator envelope gzip authorization qa_stream catalog_yaml)

core=$(find Sources/HandzAnalyticsCore -name '*.swift' | sort)
# The generated snapshot is compiled into the fuzz target's own module: drop its import.
sed '/^import HandzAnalyticsCore$/d' Sources/HandzAnalyticsClient/Generated/CatalogSnapshot.swift > "$RUN/CatalogSnapshot.swift"

sources_for() {
  case "$1" in
    validator|envelope) echo $core "$RUN/CatalogSnapshot.swift" ;;
    gzip) echo $(find Sources/HandzCompression -name '*.swift' | sort) ;;
    # The header's parsing, without the HMAC half (RequestSignature+HMAC.swift needs swift-crypto).
    authorization) echo Sources/HandzSigning/RequestSignature.swift Sources/HandzSigning/IngestionKey.swift ;;
    qa_stream)
      # HandzQA imports the core as a module; in one module that import is dropped.
      mkdir -p "$RUN/qa"
      for file in $(find Sources/HandzQA -name '*.swift' | sort); do
        sed '/^import HandzAnalyticsCore$/d' "$file" > "$RUN/qa/$(basename "$file")"
      done
      echo $core "$RUN/CatalogSnapshot.swift" "$RUN"/qa/*.swift ;;
  esac
}

# The YAML loaders' target: fuzz/CatalogYAML next to a copy of the repository named
# HandzAnalytics (its path dependency), built in release mode with the sanitizer and coverage on
# every module, Swift and C (libyaml inside Yams). -parse-as-library: libFuzzer supplies main.
build_catalog_yaml() {
  local layout="$RUN/yaml"
  rm -rf "$layout"
  copy_repository "$layout/HandzAnalytics"
  cp -R fuzz/CatalogYAML "$layout/CatalogYAML"
  local flags=(--package-path "$layout/CatalogYAML" -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
               -Xcc -fsanitize=fuzzer-no-link,address)
  swift build "${flags[@]}" > "$RUN/catalog_yaml-build.log" 2>&1 || { tail -20 "$RUN/catalog_yaml-build.log"; return 0; }
  cp "$(swift build "${flags[@]}" --show-bin-path)/catalog_yaml" "$1"
}
export HANDZ_FUZZ_CATALOG="$PWD/catalog"

failed=0
for target in "${targets[@]}"; do
  started=$SECONDS
  binary="$RUN/$target"
  if [ "$target" = catalog_yaml ]; then
    build_catalog_yaml "$binary"
  else
    # -O: libFuzzer needs speed; the sanitizer and coverage instrumentation stay on.
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name HandzFuzz -I Sources/CZlib \
      $(sources_for "$target") "fuzz/Targets/$target.swift" -o "$binary" 2>&1 | grep -v "Cannot export local symbol" || true
  fi
  [ -x "$binary" ] || { echo "FAIL fuzz $target: did not build"; failed=1; continue; }
  corpus="$RUN/corpus-$target"
  mkdir -p "$corpus" "$RUN/artifacts-$target"
  # Regressions first: every input that once failed must pass now.
  if [ -d "fuzz/regressions/$target" ] && [ -n "$(ls -A "fuzz/regressions/$target")" ]; then
    if ! "$binary" -timeout=10 -rss_limit_mb=2048 "fuzz/regressions/$target"/* > "$RUN/$target-regressions.log" 2>&1; then
      echo "FAIL fuzz $target: a regression input fails again (see $RUN/$target-regressions.log)"; failed=1; continue
    fi
  fi
  if "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$RUN/artifacts-$target/" "$corpus" "fuzz/corpus/$target" > "$RUN/$target.log" 2>&1; then
    runs=$(grep -m1 "stat::number_of_executed_units" "$RUN/$target.log" | awk '{print $2}')
    cov=$(grep "cov:" "$RUN/$target.log" | tail -1 | sed -E 's/.*cov: ([0-9]+).*/\1/')
    echo "fuzz $target: ${runs:-?} runs in ${seconds} s, coverage ${cov:-?} edges, no findings ($((SECONDS - started)) s with the build)"
  else
    echo "FAIL fuzz $target: a finding; the input is in $RUN/artifacts-$target/ and the report in $RUN/$target.log"
    grep -m5 -E "ERROR|Fatal error|precondition|SUMMARY" "$RUN/$target.log" || true
    failed=1
  fi
done
exit $failed
