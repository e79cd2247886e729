#!/usr/bin/env bash
# Ingestion benchmark: the real server on loopback with the embedded SQLite store, driven by
# handz-load (signed gzip batches of 100 valid events, random UUIDv4 event_ids, one install per
# batch), then the sqlite3 command-line tool importing the same rows into the same schema.
#
#   scripts/bench-ingest.sh [SECONDS] [CONNECTIONS] [ENGINE]   (defaults: 15 s, 128 connections, sqlite)
#
# ENGINE segments runs `serve --engine segments` (issue 34: the segment log); the stored events are
# then counted by `handz-analytics stats` (chunks and segments) and the sqlite3 import steps, which
# compare with the SQLite log's schema, are skipped.
# Server and load generator share the machine's cores. Figures go to BENCHMARKS.md with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
# HANDZ_SERVE_ARGS adds options to `serve` (say, --column-seal-interval 0); HANDZ_LOAD_ARGS to handz-load (say, --ids v7).
seconds="${1:-15}"
connections="${2:-128}"
engine="${3:-sqlite}"
root=$PWD
work=$(mktemp -d /tmp/handz-bench-ingest.XXXXXX)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

swift build -c release --product handz-analytics >/dev/null
swift build -c release --product handz-load >/dev/null
bin=$(swift build -c release --show-bin-path)

start_server() {  # $1 = directory
  (cd "$1" && exec "$bin/handz-analytics" serve --catalog "$root/catalog" --port 0 --log-level warning \
     --max-concurrent-requests 512 --engine "$engine" ${HANDZ_SERVE_ARGS:-} > server.log 2>&1) &
  server_pid=$!
  for _ in $(seq 1 200); do grep -q "listening on" "$1/server.log" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$1/server.log")
}
stop_server() { kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=""; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), SQLite $(sqlite3 --version | cut -d' ' -f1)"

mkdir -p "$work/full"
start_server "$work/full"
echo "== saturation: closed loop, $connections connections, $seconds s"
"$bin/handz-load" --url "http://127.0.0.1:$port" --keys "$work/full/handz-keys.json" --catalog "$root/catalog" \
  --connections "$connections" --seconds "$seconds" ${HANDZ_LOAD_ARGS:-} 2>/dev/null | tee "$work/full.txt"
stop_server
if [ "$engine" = segments ]; then
  stored=$("$bin/handz-analytics" stats --db "$work/full/handz-events.sqlite" | python3 -c "import json,sys; print(json.load(sys.stdin)['stored_events'])")
  echo "durably stored after shutdown: $stored events ($(du -sm "$work/full/handz-events.sqlite.segments" | cut -f1) MB of segments not sealed yet, $(du -sm "$work/full/handz-events.sqlite.columns" | cut -f1) MB of chunks)"
else
  stored=$(sqlite3 "$work/full/handz-events.sqlite" "SELECT COUNT(*) FROM events")
  echo "durably stored after shutdown: $stored events"
fi
# Issue 33: serve seals the log into its column store in the background; what it had not yet
# sealed at shutdown is the copy's lag (the next page, `layer` or the next `serve` seals it).
sealed=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['sealed_through_rowid'])" "$work/full/handz-events.sqlite.columns/manifest.json" 2>/dev/null || echo 0)
[ "$engine" = segments ] || echo "column store at shutdown: sealed through log row $sealed of $stored"
rate=$(sed -n 's/^accepted: [0-9]* events (\([0-9]*\) events\/s).*/\1/p' "$work/full.txt")

mkdir -p "$work/half"
start_server "$work/half"
half=$(( rate / 2 ))
echo "== latency at half that rate: open loop at $half events/s, $seconds s"
"$bin/handz-load" --url "http://127.0.0.1:$port" --keys "$work/half/handz-keys.json" --catalog "$root/catalog" \
  --connections "$connections" --seconds "$seconds" --rate "$half" ${HANDZ_LOAD_ARGS:-} 2>/dev/null
stop_server
[ "$engine" = segments ] && exit 0

echo "== the store's own limit: sqlite3 CLI importing the same rows into the same schema"
db="$work/full/handz-events.sqlite"
sqlite3 -csv "$db" "SELECT lower(hex(event_id)), event_name, event_time_ms, received_time_ms, install_id, session_id, user_id,
  user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id,
  catalog_version, properties FROM events" > "$work/rows.csv"
rows=$(wc -l < "$work/rows.csv")
schema=$(sqlite3 "$db" ".schema events")
for variant in "the log's indexes" "unique event_id index only"; do
  rm -f "$work/import.sqlite"*
  if [ "$variant" = "the log's indexes" ]; then echo "$schema" | sqlite3 "$work/import.sqlite"
  else echo "$schema" | grep -v "CREATE INDEX" | sqlite3 "$work/import.sqlite"; fi
  sqlite3 "$work/import.sqlite" "PRAGMA journal_mode=WAL" >/dev/null
  start_ns=$(date +%s%N)
  sqlite3 "$work/import.sqlite" -cmd "PRAGMA synchronous=FULL" -cmd "PRAGMA cache_size=-131072" ".import --csv $work/rows.csv events"
  end_ns=$(date +%s%N)
  python3 -c "import sys; r,s,e=map(int,sys.argv[1:4]); print(f'sqlite3 .import ({sys.argv[4]}): {r} rows in {(e-s)/1e9:.2f} s = {r/((e-s)/1e9):.0f} rows/s')" "$rows" "$start_ns" "$end_ns" "$variant"
done
