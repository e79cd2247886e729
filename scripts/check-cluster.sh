#!/usr/bin/env bash
# The deployment guide (HandzServer docs, "Past one machine"), followed step by step on loopback,
# and its proofs (issue 8):
#   1. two ingest nodes share one PostgreSQL store; a load generator spreads signed batches over
#      both, sends some batches twice to different nodes, and one node is killed with kill -9
#      mid-load and started again — afterwards every acknowledged event is stored exactly once;
#   2. key rotation reaches every node without a restart;
#   3. the lake export of that store, and F0–F4 and every KPI give the same numbers from SQLite
#      (the same events imported), the PostgreSQL store the nodes wrote (every variant), and Spark
#      SQL, ClickHouse (chdb) and DuckDB reading the lake files (each funnel and KPI over the full
#      range, F0 per user and by catalog version: `--lake-cases reading`, Spark F0 three ways and
#      two KPIs; the variants test each dialect's SQL, which check-engines.sh runs in full on every
#      engine);
#   4. fresh batches sent to both nodes at once in opposite orders: no deadlock, no 503;
#   5. a deletion requested on one node is completed by the other (issue 14): node 2 is restarted
#      as the lake's node, so the lake step can only be its own;
#   6. an analysis node (`serve --follow`, issue 36) follows the store through the load, is killed
#      with kill -9 mid-follow and started again, then holds exactly the store's events; every
#      funnel on its served pages, its explorer and its trends page equal the SQL on PostgreSQL
#      for the same range; PostgreSQL restarted under it, the nodes go on and the copy again
#      holds exactly the store's events; the deletion of proof 5 reaches its files.
# Installs what it needs (scripts/lib/engines.sh); run by scripts/test.sh (and so by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
source scripts/lib/workdir.sh
work_run_dir cluster
started=$SECONDS

source scripts/lib/engines.sh
engines_install
source scripts/lib/server.sh
handz_bin
PY="$VENV/bin/python"

# --- Guide step 1: one PostgreSQL server for every node, and a database for the events.
source scripts/lib/postgres.sh
postgres_start "$RUN"
postgres_as "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U handz handz_events
STORE="postgres://handz@127.0.0.1:$PG_PORT/handz_events"
STORE_DSN="host=127.0.0.1 port=$PG_PORT user=handz dbname=handz_events"

# --- Guide step 2: one keys file, the same on every node; the app gets a one-key file.
"$BIN" keys create --keys "$RUN/handz-keys.json" --scope ingest --client-key-out "$RUN/app-key-1.json" >/dev/null

# --- Guide step 3: N nodes, each `serve --store postgres://…` behind the load balancer.
# Rate limits are per node: with N nodes a key may send up to N times --key-events-per-second.
declare -a PIDS PORTS
start_node() {  # $1 = node number, then extra serve options
  local n="$1" port="${PORTS[$1]:-0}"
  shift
  (cd "$RUN" && exec "$BIN" serve --store "$STORE" --keys "$RUN/handz-keys.json" --catalog "$ROOT/catalog" \
     --host 127.0.0.1 --port "$port" --install-events-per-second 1000 --log-level warning "$@" > "$RUN/node$n.log" 2>&1) &
  PIDS[$n]=$!
  for _ in $(seq 1 300); do grep -q "listening on" "$RUN/node$n.log" 2>/dev/null && break; sleep 0.1; done
  PORTS[$n]=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$RUN/node$n.log" | tail -1)
  [ -n "${PORTS[$n]}" ] || { echo "node $n did not start"; cat "$RUN/node$n.log"; exit 1; }
}
stop_nodes() { for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; postgres_stop; }
trap stop_nodes EXIT
start_node 1
start_node 2
NODES="http://127.0.0.1:${PORTS[1]},http://127.0.0.1:${PORTS[2]}"
echo "nodes on ports ${PORTS[1]} and ${PORTS[2]}, one PostgreSQL store on $PG_PORT"

# --- Guide step 6 (issue 36): an analysis node, following the store into its own copy, serving
# the dashboards from it. Node number 3, in the same PIDS and PORTS arrays.
mkdir -p "$RUN/analysis"
start_analysis() {
  local port="${PORTS[3]:-0}"
  (cd "$RUN" && exec "$BIN" serve --follow "$STORE" --db "$RUN/analysis/copy.sqlite" --engine segments --keys "$RUN/handz-keys.json" \
     --catalog "$ROOT/catalog" --host 127.0.0.1 --port "$port" --log-level warning > "$RUN/node3.log" 2>&1) &
  PIDS[3]=$!
  for _ in $(seq 1 300); do grep -q "listening on" "$RUN/node3.log" 2>/dev/null && break; sleep 0.1; done
  PORTS[3]=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$RUN/node3.log" | tail -1)
  [ -n "${PORTS[3]}" ] || { echo "the analysis node did not start"; cat "$RUN/node3.log"; exit 1; }
}
wait_for_copy() {  # $1: since what (the message)
  local stored copied=0 began=$SECONDS
  stored=$(postgres_as "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U handz -d handz_events -tAc "SELECT COUNT(*) FROM events")
  for _ in $(seq 1 600); do
    copied=$("$BIN" stats --db "$RUN/analysis/copy.sqlite" 2>/dev/null | "$PY" -c "import json,sys; print(json.load(sys.stdin)['stored_events'])" 2>/dev/null || echo 0)
    [ "$copied" = "$stored" ] && break
    sleep 0.2
  done
  [ "$copied" = "$stored" ] || { echo "FAIL the analysis node holds $copied events, the store $stored"; tail -20 "$RUN/node3.log"; exit 1; }
  echo "analysis node: holds all $stored events of the store $((SECONDS - began)) s after $1"
}
start_analysis
echo "analysis node on port ${PORTS[3]}, following the store"

# Health of every node (what the load balancer checks).
for n in 1 2; do
  "$PY" -c "import json,sys,urllib.request; h=json.load(urllib.request.urlopen('http://127.0.0.1:${PORTS[$n]}/health', timeout=5)); sys.exit(0 if h['store_writable'] else 1)"
done

# --- Proof 1: load across both nodes, retries to the other node, kill -9 of node 1 midway.
"$BIN" simulate --installs 800 --days 42 --seed 20260301 --out "$RUN/events.ndjson" >/dev/null
cat > "$RUN/kill-node-1.sh" <<KILL
kill -9 ${PIDS[1]} ${PIDS[3]}
sleep 1
KILL
# The restart runs from this shell (the kill script only kills), after the loader reports midway.
"$PY" Tests/Interop/cluster_load.py --events "$RUN/events.ndjson" --nodes "$NODES" --key-file "$RUN/app-key-1.json" \
  --postgres "$STORE_DSN" --batch 200 --threads 8 --retry-every 5 \
  --midway "bash $RUN/kill-node-1.sh && touch $RUN/killed" > "$RUN/load.log" 2>&1 &
loader=$!
for _ in $(seq 1 3000); do [ -e "$RUN/killed" ] && break; kill -0 "$loader" 2>/dev/null || break; sleep 0.1; done
if [ -e "$RUN/killed" ]; then
  start_node 1   # same port: the balancer's target comes back
  start_analysis # and the analysis node, which resumes from its cursor
  echo "node 1 and the analysis node killed with kill -9 mid-load and restarted"
fi
wait "$loader" || { cat "$RUN/load.log"; exit 1; }
cat "$RUN/load.log"

# --- Proof 6a: the analysis node's copy holds exactly the store's events (it counts what it
# sealed), some seconds after the last acknowledged batch.
wait_for_copy "the load ended (kill -9 mid-follow included)"
# A second analysis node started from empty on the store as it stands: `follow` catches up in
# pages (progress on standard error), exactly the store's events.
fresh=$("$BIN" follow --store "$STORE" --db "$RUN/analysis-fresh.sqlite" --page-size 5000 2> "$RUN/follow-fresh.log")
copied=$("$PY" -c "import json,sys; print(json.loads(sys.argv[1])['copied'])" "$fresh")
stored=$(postgres_as "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U handz -d handz_events -tAc "SELECT COUNT(*) FROM events")
[ "$copied" = "$stored" ] && grep -q "following: " "$RUN/follow-fresh.log" \
  || { echo "FAIL a follower from empty copied $copied events of $stored (or showed no progress)"; exit 1; }
echo "a second analysis node from empty: $fresh"

# --- Guide step 4 / proof 2: rotate the key on every node without a restart.
"$BIN" keys create --keys "$RUN/handz-keys.json" --scope ingest --client-key-out "$RUN/app-key-2.json" >/dev/null
sleep 2   # nodes re-read the keys file within a second
"$PY" Tests/Interop/cluster_load.py --events "$RUN/events.ndjson" --nodes "$NODES" --key-file "$RUN/app-key-2.json" --postgres "$STORE_DSN" --probe 200
"$BIN" keys revoke --keys "$RUN/handz-keys.json" "$("$PY" -c "import json; print(json.load(open('$RUN/app-key-1.json'))['keys'][0]['id'])")" >/dev/null
sleep 2
"$PY" Tests/Interop/cluster_load.py --events "$RUN/events.ndjson" --nodes "$NODES" --key-file "$RUN/app-key-1.json" --postgres "$STORE_DSN" --probe 403

# --- Guide step 5: the lake, exported from the shared store (cron or `serve --lake` on one node).
now_hour=$(date -u +%Y-%m-%dT%H:00:00Z)
next_hour=$(date -u -d '+1 hour' +%Y-%m-%dT%H:00:00Z)
"$BIN" export lake --store "$STORE" --from 2026-01-01 --to "$next_hour" --out "$RUN/lake" | tee "$RUN/export-1.json"
"$BIN" export lake --store "$STORE" --from 2026-01-01 --to "$next_hour" --out "$RUN/lake" | tee "$RUN/export-2.json"
"$PY" - "$RUN" "$STORE_DSN" <<'CHECK'
import glob, gzip, hashlib, json, sys
import psycopg
run, dsn = sys.argv[1], sys.argv[2]
first, second = (json.load(open(f"{run}/export-{n}.json")) for n in (1, 2))
assert second["partitions_written"] == 0 and second["partitions_unchanged"] == first["partitions_written"], "a re-run rewrote partitions"
rows = 0
for manifest_path in glob.glob(f"{run}/lake/dt=*/hour=*/_manifest.json"):
    manifest = json.load(open(manifest_path))
    data = open(manifest_path.replace("_manifest.json", "part-00000.ndjson.gz"), "rb").read()
    entry = manifest["files"][0]
    assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"], "manifest checksum differs"
    lines = gzip.decompress(data).splitlines()
    assert len(lines) == entry["rows"] == manifest["rows"], "manifest row count differs"
    rows += len(lines)
with psycopg.connect(dsn) as connection:
    stored = connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
assert rows == stored, f"lake holds {rows} rows, the store {stored}"
print(f"lake: {rows} rows, every manifest checksum and count verified; re-run wrote nothing")
CHECK

# --- Proof 3: the same numbers everywhere.
# The embedded store (the segment engine, the default) answers; its events table for the
# harness comes from `export sqlite`.
"$BIN" import --db "$RUN/store.sqlite" "$RUN/events.ndjson" >/dev/null
"$BIN" export sqlite --db "$RUN/store.sqlite" --out "$RUN/events.sqlite" >/dev/null
timeout 1800 "$PY" Tests/Interop/engine_agreement.py --binary "$BIN" --db "$RUN/store.sqlite" --events "$RUN/events.sqlite" --work "$RUN" \
  --postgres-store "$STORE_DSN" --lake "$RUN/lake" --engines postgres-store,duckdb-lake,clickhouse-lake,spark-lake --skip-bigquery \
  --lake-cases reading \
  --from 2026-03-01 --to 2026-04-12 --narrow-from 2026-03-08T06:30:00Z --narrow-to 2026-03-29

# --- Proof 6b: every funnel on the analysis node's pages, its explorer and its trends page equal
# the SQL on the store the ingest nodes wrote, for the same range.
"$BIN" keys create --keys "$RUN/handz-keys.json" --scope analyst > "$RUN/analyst-key.txt"
sleep 2   # keys files are re-read within a second
analyst_id=$(sed -n 's/^key id: *//p' "$RUN/analyst-key.txt" | head -1)
HANDZ_ANALYST_SECRET=$(sed -n 's/^secret: *//p' "$RUN/analyst-key.txt" | head -1) timeout 600 "$PY" Tests/Interop/analysis_node_check.py \
  --base "http://127.0.0.1:${PORTS[3]}" --analyst-id "$analyst_id" --binary "$BIN" --postgres "$STORE_DSN" --from 2026-03-01 --to 2026-04-11 --db "$RUN/analysis/copy.sqlite"
rm -f "$RUN/analyst-key.txt"

# --- Proof 6c: PostgreSQL restarts under the nodes (every connection cut); the ingest nodes take
# batches again, and the analysis node, whose rounds fail meanwhile, resumes where it stood.
postgres_restart
probed=""
for _ in $(seq 1 100); do
  if "$PY" Tests/Interop/cluster_load.py --events "$RUN/events.ndjson" --nodes "$NODES" --key-file "$RUN/app-key-2.json" --postgres "$STORE_DSN" --probe 200 \
    > "$RUN/after-restart.log" 2>&1; then probed=1; break; fi
  sleep 0.3
done
cat "$RUN/after-restart.log"
[ -n "$probed" ] || { echo "FAIL the ingest nodes did not take a batch within 30 s of the PostgreSQL restart"; exit 1; }

# --- Proof 4 (issue 21 §13): overlapping batches on two nodes at once, in opposite orders, never
# deadlock (rows are inserted in event_id order): every answer is 200, every event stored once.
# Last, because its fresh events would change the numbers proof 3 compares. Key 2 (key 1 is revoked).
"$PY" Tests/Interop/cluster_load.py --events "$RUN/events.ndjson" --nodes "$NODES" --key-file "$RUN/app-key-2.json" \
  --postgres "$STORE_DSN" --batch 1000 --overlap 8
# Proof 6c's end: those fresh events, stored after the restart, reach the copy too.
wait_for_copy "a PostgreSQL restart and proof 4's fresh events"

# --- Proof 5 (issue 14): node 2 becomes the lake's node (`serve --lake`, as the guide says: one
# node), with no batching delay for VACUUM FULL; a deletion sent to node 1 is finished by node 2.
"$BIN" keys create --keys "$RUN/handz-keys.json" --scope admin --client-key-out "$RUN/admin-key.json" >/dev/null
"$BIN" export lake --store "$STORE" --from 2026-01-01 --to "$next_hour" --out "$RUN/lake-live" >/dev/null
kill -TERM "${PIDS[2]}"; wait "${PIDS[2]}" 2>/dev/null || true
start_node 2 --lake "$RUN/lake-live" --lake-interval 3600 --deletion-interval 1 --deletion-vacuum-delay 0
sleep 2   # keys files are re-read within a second
timeout 300 "$PY" Tests/Interop/cluster_deletion.py --request-node "http://127.0.0.1:${PORTS[1]}" --status-node "http://127.0.0.1:${PORTS[2]}" \
  --admin-key-file "$RUN/admin-key.json" --postgres "$STORE_DSN" --lake "$RUN/lake-live" --copy "$RUN/analysis"
echo "cluster check: $((SECONDS - started)) s"
