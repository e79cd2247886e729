#!/usr/bin/env bash
# Issue 8 benchmark: ingest events/s with two nodes on one PostgreSQL store (one handz-load per
# node, run at the same time), the one-node PostgreSQL and embedded SQLite figures as peers in the
# same run, then the lake export's throughput from PostgreSQL and from SQLite.
#
#   scripts/bench-cluster.sh [SECONDS] [CONNECTIONS_PER_NODE]      (defaults: 15 s, 64)
#
# Everything shares this machine's cores: the load generators, the nodes and PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds="${1:-15}"
connections="${2:-64}"
work=$(mktemp -d /tmp/handz-bench-cluster.XXXXXX)
chmod 755 "$work"
declare -a pids
cleanup() { for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done; postgres_stop; rm -rf "$work"; }
source scripts/lib/postgres.sh
trap cleanup EXIT

swift build -c release --product handz-analytics >/dev/null
swift build -c release --product handz-load >/dev/null
bin=$(swift build -c release --show-bin-path)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
POSTGRES_FSYNC=on POSTGRES_KEEP_TRAP=1   # durable commits; keep this script's cleanup trap
postgres_start "$work"
postgres_as "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U handz bench
url="postgres://handz@127.0.0.1:$PG_PORT/bench"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on loopback (fsync $(postgres_as "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U handz -d bench -Atc 'SHOW fsync'), synchronous_commit $(postgres_as "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U handz -d bench -Atc 'SHOW synchronous_commit'))"
"$bin/handz-analytics" keys create --keys "$work/keys.json" --scope ingest >/dev/null

start_node() {  # $1 = name, rest = store options; sets port
  (cd "$work" && exec "$bin/handz-analytics" serve "${@:2}" --keys "$work/keys.json" --catalog "$root/catalog" --port 0 \
     --log-level warning --max-concurrent-requests 512 > "$work/$1.log" 2>&1) &
  pids+=($!)
  for _ in $(seq 1 200); do grep -q "listening on" "$work/$1.log" 2>/dev/null && break; sleep 0.05; done
  port=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$work/$1.log")
}
load() {  # $1 = port, $2 = connections, $3 = output
  "$bin/handz-load" --url "http://127.0.0.1:$1" --keys "$work/keys.json" --catalog "$root/catalog" \
    --connections "$2" --seconds "$seconds" --seed "$RANDOM" 2>/dev/null > "$3"
}
rate() { sed -n 's/^accepted: [0-9]* events (\([0-9]*\) events\/s).*/\1/p' "$1"; }
stop_all() { for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }

echo "== one node, embedded SQLite, $((connections * 2)) connections"
start_node sqlite --db "$work/events.sqlite"
load "$port" $((connections * 2)) "$work/sqlite.txt"; cat "$work/sqlite.txt"; stop_all

echo "== one node, PostgreSQL, $((connections * 2)) connections"
start_node pg1 --store "$url"
load "$port" $((connections * 2)) "$work/pg1.txt"; cat "$work/pg1.txt"; stop_all

echo "== two nodes, one PostgreSQL, $connections connections each, at the same time"
start_node pg2a --store "$url"; port_a=$port
start_node pg2b --store "$url"; port_b=$port
load "$port_a" "$connections" "$work/pg2a.txt" & la=$!
load "$port_b" "$connections" "$work/pg2b.txt" & lb=$!
wait $la $lb
cat "$work/pg2a.txt" "$work/pg2b.txt"
echo "two nodes together: $(( $(rate "$work/pg2a.txt") + $(rate "$work/pg2b.txt") )) events/s"
stop_all

echo "== lake export (all rows, one run each; gzip level 6)"
"$bin/handz-analytics" export lake --store "$url" --from 2020-01-01 --to 2030-01-01 --out "$work/lake-pg" > "$work/export-pg.json"
"$bin/handz-analytics" export lake --db "$work/events.sqlite" --from 2020-01-01 --to 2030-01-01 --out "$work/lake-sqlite" > "$work/export-sqlite.json"
for source in pg sqlite; do
  python3 - "$work/export-$source.json" "$source" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
mb = r["uncompressed_bytes"] / 1e6
print(f"export from {sys.argv[2]}: {r['rows']} rows, {mb:.1f} MB NDJSON -> {r['compressed_bytes'] / 1e6:.1f} MB gzip in {r['seconds']:.2f} s = "
      f"{mb / r['seconds']:.1f} MB/s uncompressed, {r['rows'] / r['seconds']:.0f} rows/s")
PY
done
