#!/usr/bin/env bash
# An analysis node catching up from empty (issue 36; not run in CI): the events of the
# bench-trends store (INSTALLS installs × DAYS days, simulated and imported by
# scripts/bench-trends.sh, made here when missing) loaded into a PostgreSQL store on loopback,
# then `follow` copies them into a new segment store and seals it — timed whole, with its read
# and seal times — beside a peer in the same run: psql copying the same rows, in the same
# (commit_xid, event_id) order, to /dev/null (what PostgreSQL alone takes to hand them out).
# Then `funnel F0` on the copy against the same on the single-node store those events came from
# (farm-bench, paired). Figures go to BENCHMARKS.md ("Analysis nodes").
#   scripts/bench-follow.sh [INSTALLS] [DAYS]     (default 100000 × 30)
#   ONLY=lag scripts/bench-follow.sh              the lag phase alone, on an empty store and copy
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALLS="${1:-100000}" DAYS="${2:-30}"
source scripts/lib/workdir.sh
work_run_dir "bench-follow-$INSTALLS-$DAYS"
SOURCE_RUN="$WORK_DIR/bench-trends-$INSTALLS-$DAYS"
[ "${ONLY:-}" = lag ] || [ -d "$SOURCE_RUN/store.sqlite.segments" ] || bash scripts/bench-trends.sh "$INSTALLS" "$DAYS" 1 none >/dev/null
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null; }
swift build -c release --product handz-analytics >/dev/null
BIN="$(swift build -c release --show-bin-path)/handz-analytics"
FROM=2026-03-01 TO=$(date -u -d "2026-03-01 + $DAYS days" +%F)

source scripts/lib/postgres.sh
postgres_start "$RUN"
postgres_as "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U handz handz_events
STORE="postgres://handz@127.0.0.1:$PG_PORT/handz_events"
psql_store() { postgres_as "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U handz -d handz_events -v ON_ERROR_STOP=1 "$@"; }
"$BIN" deletions list --store "$STORE" >/dev/null   # migrates the schema

stored=0
if [ "${ONLY:-}" != lag ]; then
# The single-node store's events, as the ingest nodes would have stored them.
[ -s "$RUN/events.sqlite" ] || "$BIN" export sqlite --db "$SOURCE_RUN/store.sqlite" --out "$RUN/events.sqlite" >/dev/null
columns="event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties"
uuid="lower(substr(hex(event_id),1,8)||'-'||substr(hex(event_id),9,4)||'-'||substr(hex(event_id),13,4)||'-'||substr(hex(event_id),17,4)||'-'||substr(hex(event_id),21,12))"
sqlite3 -csv "$RUN/events.sqlite" "SELECT ${columns/event_id,/$uuid,} FROM events" > "$RUN/events.csv"
chmod 644 "$RUN/events.csv"; chmod 755 "$RUN"
started=$SECONDS
psql_store -c "\\copy events ($columns) FROM STDIN WITH (FORMAT csv)" < "$RUN/events.csv" >/dev/null
psql_store -c "VACUUM ANALYZE events" >/dev/null
rm -f "$RUN/events.csv"
stored=$(psql_store -tAc "SELECT COUNT(*) FROM events")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), commit $(git rev-parse --short HEAD)"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}'): $stored events loaded in $((SECONDS - started)) s"

# The peer: PostgreSQL handing the same rows out in the same order, to /dev/null.
start=$(date +%s%N)
psql_store -c "\\copy (SELECT commit_xid::text AS commit_order, $columns FROM events ORDER BY commit_xid, event_id) TO '/dev/null'" >/dev/null
peer_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "peer: psql \\copy of the rows in commit order to /dev/null: $peer_ms ms ($(( stored * 1000 / (peer_ms + 1) )) events/s)"

# The analysis node from empty: read, then seal.
rm -rf "$RUN"/copy.sqlite*
start=$(date +%s%N)
result=$("$BIN" follow --store "$STORE" --db "$RUN/copy.sqlite" 2>/dev/null)
total_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "follow from empty: $result, whole process $total_ms ms"
python3 -c "
import json, sys
r = json.loads('''$result''')
print(f\"  reading into the segment log: {r['copied'] / r['read_seconds']:,.0f} events/s; with the seal: {r['copied'] * 1000 / $total_ms:,.0f} events/s\")"

# The same funnel on the copy and on the single node it came from (paired, same run).
farm-bench -n 5 --vs "$BIN funnel F0 --db $SOURCE_RUN/store.sqlite --from $FROM --to $TO --format json" -- \
  "$BIN" funnel F0 --db "$RUN/copy.sqlite" --from "$FROM" --to "$TO" --format json
fi

# The lag while two ingest nodes take a load at their combined rate (fresh journeys, after the
# copy above caught up): scripts/bench/follow_lag.py samples the store's count and the copy's.
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import psycopg" 2>/dev/null || "$VENV/bin/pip" install -q 'psycopg[binary]>=3.1,<4'
"$BIN" keys create --keys "$RUN/keys.json" --scope ingest --client-key-out "$RUN/app-key.json" >/dev/null
declare -a PIDS PORTS
start_serving() {  # $1 = number, then serve's options
  local n="$1"; shift
  "$BIN" serve "$@" --keys "$RUN/keys.json" --host 127.0.0.1 --port 0 --install-events-per-second 1000 --log-level warning > "$RUN/serve$n.log" 2>&1 &
  PIDS[$n]=$!
  for _ in $(seq 1 300); do grep -q "listening on" "$RUN/serve$n.log" 2>/dev/null && break; sleep 0.1; done
  PORTS[$n]=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$RUN/serve$n.log" | tail -1)
}
trap 'kill ${PIDS[*]} 2>/dev/null; wait 2>/dev/null; postgres_stop' EXIT
start_serving 1 --store "$STORE"
start_serving 2 --store "$STORE"
[ "${ONLY:-}" != lag ] || rm -rf "$RUN"/copy.sqlite*
start_serving 3 --follow "$STORE" --db "$RUN/copy.sqlite" --engine segments
"$BIN" simulate --installs 20000 --days 30 --seed 11 --start 2026-06-01 --out "$RUN/load.ndjson" >/dev/null
"$VENV/bin/python" Tests/Interop/cluster_load.py --events "$RUN/load.ndjson" --nodes "http://127.0.0.1:${PORTS[1]},http://127.0.0.1:${PORTS[2]}" \
  --key-file "$RUN/app-key.json" --postgres "host=127.0.0.1 port=$PG_PORT user=handz dbname=handz_events" --batch 200 --threads 8 > "$RUN/load.log" 2>&1 &
loader=$!
"$VENV/bin/python" scripts/bench/follow_lag.py --postgres "host=127.0.0.1 port=$PG_PORT user=handz dbname=handz_events" \
  --metrics "http://127.0.0.1:${PORTS[3]}/metrics" --nodes "http://127.0.0.1:${PORTS[1]}/metrics,http://127.0.0.1:${PORTS[2]}/metrics" \
  --base "$stored" --loader "$loader"
wait "$loader" || true
tail -3 "$RUN/load.log"
