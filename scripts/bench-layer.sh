#!/usr/bin/env bash
# Analytical layer benchmark (issue 15; not run in CI): for 2,000 and 20,000 simulated installs × 30
# days, the fold of the whole log into the layer, then all 38 dashboard panels and funnel F0 read
# from the log (`--read log`, the peer) and from the layer, alternated, two runs each; and where the
# bytes go (dbstat). Figures go to BENCHMARKS.md, "The store split".
# Usage: scripts/bench-layer.sh [debug|release] (default debug: the queries' time is SQLite's C code).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG="${1:-debug}"
source scripts/lib/workdir.sh
work_run_dir bench-layer keep
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null; }
swift build -c "$CONFIG" --product handz-analytics >/dev/null
B="$(swift build -c "$CONFIG" --show-bin-path)/handz-analytics"
now() { date +%s.%N; }
for n in 2000 20000; do
  D="$RUN/$n"
  mkdir -p "$D"
  if [ ! -s "$D/s.sqlite" ]; then
    "$B" simulate --installs "$n" --days 30 --seed 7 --start 2026-03-01 --out "$D/ev.ndjson" >/dev/null
    "$B" import --db "$D/s.sqlite" "$D/ev.ndjson" >/dev/null 2>&1
    rm -f "$D/ev.ndjson"
  fi
  echo "installs $n, events: $(sqlite3 "$D/s.sqlite" 'SELECT COUNT(*) FROM events')"
  # The fold alone: empty the layer without secure_delete's zeroing, then fold it all.
  sqlite3 "$D/s.sqlite" "DELETE FROM analytic_events; DELETE FROM event_contexts; DELETE FROM event_names;
    UPDATE analytic_state SET value = 0; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
  echo "fold: $("$B" layer --db "$D/s.sqlite")"
  sqlite3 "$D/s.sqlite" "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 6"
  for read in log layer log layer; do
    s=$(now); "$B" dashboard render --db "$D/s.sqlite" --out "$D/report-$read" --from 2026-03-01 --to 2026-03-31 --workers 1 --read "$read" >/dev/null 2>&1
    echo "38 panels, read $read: $(echo "$(now) - $s" | bc) s"
  done
  for read in log layer log layer; do
    s=$(now); "$B" funnel F0 --db "$D/s.sqlite" --from 2026-03-01 --to 2026-03-31 --format json --read "$read" > "$D/f0-$read.json"
    echo "F0, read $read: $(echo "$(now) - $s" | bc) s"
  done
  cmp -s "$D/f0-log.json" "$D/f0-layer.json" && echo "F0: same answer" || echo "F0: DIFFERENT answers"
done
