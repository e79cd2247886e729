#!/usr/bin/env bash
# QA rules benchmark (not run in CI): simulate about a million events, then run every QA rule of
# catalog/qa over them — `handz-bench qa` (read + order + evaluate, one thread, in memory) and the
# whole `handz-analytics qa FILE` command. Figures go to BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALLS="${INSTALLS:-12000}"
RUN="${RUN_DIR:-$PWD/.build-bench-qa}"
mkdir -p "$RUN"
swift build -c release --product handz-bench
swift build -c release --product handz-analytics
BIN=.build/release
[ -f "$RUN/events.ndjson" ] || "$BIN/handz-analytics" simulate --installs "$INSTALLS" --days 42 --seed 1 --out "$RUN/events.ndjson"
wc -l "$RUN/events.ndjson"
taskset -c 0 "$BIN/handz-bench" qa "$RUN/events.ndjson" --passes 3
for _ in 1 2 3; do
  /usr/bin/time -f "handz-analytics qa FILE: %e s wall, %M KiB max RSS" taskset -c 0 "$BIN/handz-analytics" qa "$RUN/events.ndjson" >/dev/null
done
