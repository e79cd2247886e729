#!/usr/bin/env bash
# `import` into the segment engine against its peer, in the same run (issue 34's target: at
# least 2x the sqlite3 shell importing the same rows into a table with only the unique id index).
#
#   scripts/bench-import.sh [RUNS]
#
# Builds in release mode, writes the 1 M-event corpus (`corpus --count 1000000 --seed 1`: 700,002
# valid events and 299,998 invalid ones) unless it is there, imports it once into the SQLite
# engine to take the accepted rows as CSV, then times with farm-bench, in turn:
#   A: handz-analytics import --engine segments (validation, segments, the seal into chunks)
#   B: sqlite3 .import of the accepted rows into the events table with the unique event_id index only
# Both start from an empty directory each run; both make their rows durable (the segment log's
# fdatasync per group; sqlite3 with synchronous=FULL).
set -euo pipefail
runs=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${HANDZ_BENCH_DIR:-/tmp/handz-bench-import}
mkdir -p "$work"
cd "$root"
swift build -c release --product handz-analytics >/dev/null
bin="$root/.build/release/handz-analytics"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), SQLite $(sqlite3 --version | cut -d' ' -f1), commit $(git rev-parse --short HEAD)"

corpus="$work/corpus-1m.ndjson"
[ -s "$corpus" ] || "$bin" corpus --count 1000000 --seed 1 --out "$corpus" >/dev/null
rm -rf "$work/rows" && mkdir -p "$work/rows"
"$bin" import --db "$work/rows/log.sqlite" --engine sqlite "$corpus" >/dev/null 2>&1 || true
sqlite3 -csv "$work/rows/log.sqlite" "SELECT lower(hex(event_id)), event_name, event_time_ms, received_time_ms, install_id, session_id, user_id,
  user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id,
  catalog_version, properties FROM events" > "$work/rows.csv"
sqlite3 "$work/rows/log.sqlite" ".schema events" | grep -v "CREATE INDEX" > "$work/schema.sql"
echo "accepted rows: $(wc -l < "$work/rows.csv")"

# Each side as a small script (farm-bench starts commands without a shell).
cat > "$work/segments.sh" <<EOF
rm -rf $work/seg && mkdir -p $work/seg
$bin import --db $work/seg/store.sqlite --engine segments $corpus > /dev/null 2>&1
test -s $work/seg/store.sqlite
EOF
cat > "$work/shell.sh" <<EOF
set -e
rm -rf $work/shell && mkdir -p $work/shell
sqlite3 $work/shell/import.sqlite < $work/schema.sql
sqlite3 $work/shell/import.sqlite 'PRAGMA journal_mode=WAL' > /dev/null
sqlite3 $work/shell/import.sqlite -cmd 'PRAGMA synchronous=FULL' -cmd 'PRAGMA cache_size=-131072' '.import --csv $work/rows.csv events'
test "\$(sqlite3 $work/shell/import.sqlite 'SELECT COUNT(*) FROM events')" = "$(wc -l < "$work/rows.csv")"
EOF
farm-bench -n "$runs" --warmup 0 --timeout 900 --vs "sh $work/shell.sh" -- sh "$work/segments.sh"
echo "store after the import: $(du -sb "$work/seg" | cut -f1) bytes for $(wc -l < "$work/rows.csv") events"
