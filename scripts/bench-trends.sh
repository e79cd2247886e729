#!/usr/bin/env bash
# Trends, retention, paths and the funnel modes (issue 35 §1–§4; not run in CI): on a simulated segment store
# of INSTALLS installs × DAYS days, each insight below as a whole process (`trend`, `retention`,
# `paths`) on the column engine (one run to warm, then RUNS timed: min and median), and DuckDB
# running the project's own generated SQL for it (`sql trend|retention|paths --dialect duckdb`) on
# the same events in a DuckDB table (with install_first_seen), two threads, warm, in the same run;
# and the same question's served page, warm: `serve` on the store (the decoded columns and the user
# map kept, as DuckDB's connection keeps its tables), each page drawn once, then RUNS hard reloads
# (`Cache-Control: no-cache`, which draws the page again: `X-Handz-Cache: miss`), timed by curl.
# The funnels' pages are the explorer's, with a catalog funnel's steps (no success row).
# The events reach DuckDB through `export sqlite`. Figures go to BENCHMARKS.md ("Analysts'
# insights").
#   scripts/bench-trends.sh [INSTALLS] [DAYS] [RUNS] [ONLY]   (default 100000 × 30, 5 runs;
#   ONLY: trend, retention, paths or funnel to run one kind)
set -euo pipefail
set -f  # the series hold brackets: no globbing of the word-split arguments
cd "$(dirname "$0")/.."
INSTALLS="${1:-100000}" DAYS="${2:-30}" RUNS="${3:-5}" ONLY="${4:-}"
source scripts/lib/workdir.sh
work_run_dir "bench-trends-$INSTALLS-$DAYS" keep
VENV="$WORK_DIR/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import duckdb" 2>/dev/null || "$VENV/bin/pip" install -q 'duckdb>=1,<3'
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null; }

swift build -c release --product handz-analytics >/dev/null
BIN="$(swift build -c release --show-bin-path)/handz-analytics"
FROM=2026-03-01 TO=$(date -u -d "2026-03-01 + $DAYS days" +%F)

if [ ! -d "$RUN/store.sqlite.segments" ]; then
  rm -rf "$RUN"/store.sqlite*
  "$BIN" simulate --installs "$INSTALLS" --days "$DAYS" --seed 7 --start "$FROM" --out "$RUN/events.ndjson"
  /usr/bin/time -f "import: %e s, %M KB peak" "$BIN" import --db "$RUN/store.sqlite" "$RUN/events.ndjson" >/dev/null
  rm -f "$RUN/events.ndjson"
fi
if [ ! -s "$RUN/events.duckdb" ]; then
  rm -f "$RUN/events-table.sqlite"
  "$BIN" export sqlite --db "$RUN/store.sqlite" --out "$RUN/events-table.sqlite"
  columns="lower(substr(hex(event_id),1,8)||'-'||substr(hex(event_id),9,4)||'-'||substr(hex(event_id),13,4)||'-'||substr(hex(event_id),17,4)||'-'||substr(hex(event_id),21,12)) AS event_id, event_name, event_time_ms, received_time_ms, install_id, session_id, user_id, user_state, app_version, build_number, platform, os_version, device_model, locale, timezone, network_state, key_id, catalog_version, properties"
  sqlite3 -header -csv "$RUN/events-table.sqlite" "SELECT $columns FROM events" > "$RUN/events.csv"
  sqlite3 -header -csv "$RUN/events-table.sqlite" "SELECT * FROM install_first_seen" > "$RUN/first-seen.csv"
  "$VENV/bin/python" -c "
import duckdb
db = duckdb.connect('$RUN/events.duckdb')
db.execute(\"CREATE TABLE events AS SELECT * FROM read_csv('$RUN/events.csv', header=true, types={'event_time_ms': 'BIGINT', 'received_time_ms': 'BIGINT', 'user_id': 'VARCHAR', 'properties': 'VARCHAR', 'build_number': 'VARCHAR'})\")
db.execute(\"CREATE TABLE install_first_seen AS SELECT * FROM read_csv('$RUN/first-seen.csv', header=true, types={'install_id': 'VARCHAR', 'first_app_open_ms': 'BIGINT', 'last_received_ms': 'BIGINT'})\")"
  rm -f "$RUN/events.csv" "$RUN/first-seen.csv" "$RUN/events-table.sqlite"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), commit $(git rev-parse --short HEAD)"
"$BIN" stats --db "$RUN/store.sqlite" | python3 -c "import json,sys; print('stored events:', json.load(sys.stdin)['stored_events'])"

trends=(
  "--series app_open --measure installs --interval day :: trends?series=app_open&measure=installs&interval=day"
  "--series app_open,screen_viewed --measure events --interval week :: trends?series=app_open,screen_viewed&measure=events&interval=week"
  "--series screen_viewed --measure users --interval day --breakdown user_state :: trends?series=screen_viewed&measure=users&interval=day&breakdown=user_state"
  "--series app_open[launch_source=push|deep_link],flow_saved_success|flow_draft_created --measure sessions --interval month :: trends?series=app_open%5Blaunch_source%3Dpush%7Cdeep_link%5D,flow_saved_success%7Cflow_draft_created&measure=sessions&interval=month"
)
retentions=(
  "--interval day :: retention?interval=day"
  "--interval week --returning any :: retention?interval=week&returning=any"
  "--interval day --actor user --returning flow_saved_success|practice_session_started :: retention?interval=day&actor=user&returning=flow_saved_success%7Cpractice_session_started"
)
# The served pages: one server for the whole run, an analyst signed in.
source scripts/lib/server.sh
keys="$RUN/keys.json"
rm -f "$keys"
key_out=$("$BIN" keys create --keys "$keys" --scope analyst)
"$BIN" serve --db "$RUN/store.sqlite" --keys "$keys" --host 127.0.0.1 --port 0 --retention off --log-level warning > "$RUN/serve.log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
wait_for_port "$RUN/serve.log" "$server"
jar="$RUN/cookies"
curl -s -o /dev/null -c "$jar" --data-urlencode "key_id=$(sed -n 's/^key id: *//p' <<<"$key_out")" \
  --data-urlencode "secret=$(sed -n 's/^secret: *//p' <<<"$key_out")" "http://127.0.0.1:$PORT/dashboards/login"
unset key_out
LAST=$(date -u -d "$TO - 1 day" +%F)  # the pages' `to` is the last day shown
# One page (PAGE?QUERY under /dashboards/, over the run's days): drawn once, then RUNS hard reloads.
served() {
  local url="http://127.0.0.1:$PORT/dashboards/$1&range=custom&from=$FROM&to=$LAST" times=() out
  curl -s -o /dev/null -b "$jar" --max-time 900 "$url"
  for _ in $(seq "$RUNS"); do
    out=$(curl -s -o "$RUN/page.html" -D "$RUN/head" -b "$jar" -H 'Cache-Control: no-cache' --max-time 900 -w '%{http_code} %{time_total}' "$url")
    if [ "${out%% *}" != 200 ] || ! grep -qi '^X-Handz-Cache: miss' "$RUN/head"; then echo "the page $1 was not drawn: $out"; exit 1; fi
    times+=("$(awk -v s="${out#* }" 'BEGIN { printf "%d", s * 1000 }')")
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "  served page, warm, drawn again: min $(echo "$sorted" | head -1) ms, median $(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p") ms (n=$RUNS)"
}

# One insight: COMMAND then its arguments (word-split on purpose), then `::` and its page.
measure() {
  local command=$1; shift
  local page="" arguments=()
  while [ $# -gt 0 ]; do
    if [ "$1" = "::" ]; then page=$2; break; fi
    arguments+=("$1"); shift
  done
  set -- "${arguments[@]}"
  "$BIN" sql "$command" "$@" --from "$FROM" --to "$TO" --dialect duckdb > "$RUN/insight.duckdb.sql"
  "$BIN" "$command" "$@" --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json > /dev/null
  local times=() start
  for _ in $(seq "$RUNS"); do
    start=$(date +%s%N)
    "$BIN" "$command" "$@" --db "$RUN/store.sqlite" --from "$FROM" --to "$TO" --format json > /dev/null
    times+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "$command $*: column engine, whole process: min $(echo "$sorted" | head -1) ms, median $(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p") ms (n=$RUNS)"
  "$VENV/bin/python" scripts/bench/duckdb_warm.py "$RUN/events.duckdb" "$RUN/insight.duckdb.sql" "$RUNS"
  [ -z "$page" ] || served "$page"
}
paths=(
  "--anchor screen_viewed --depth 3 :: paths?anchor=screen_viewed&depth=3"
  "--anchor flow_save_attempt --direction previous --depth 5 :: paths?anchor=flow_save_attempt&direction=previous&depth=5"
)
# The catalog funnels' steps as the explorer's text (catalog/funnels.yaml).
F0_STEPS="app_open,onboarding_viewed,flow_builder_opened%7Clibrary_viewed,flow_draft_created,flow_saved_success"
F1_STEPS="guest_mode_entered,gate_result%5Bresult%3Dblocked%3Buser_state%3Dguest%5D,signup_viewed,signup_success"
funnels=(
  "F0 --order strict :: explore?steps=$F0_STEPS&order=strict"
  "F0 --by-day :: explore?steps=$F0_STEPS&by=day"
  "F1 --exclude app_background --exclude gate_result[result=blocked]@3-4 :: explore?steps=$F1_STEPS&exclude=app_background&exclude=gate_result%5Bresult%3Dblocked%5D%403-4"
  "--steps onboarding_viewed,flow_builder_opened|library_viewed,flow_draft_created --order any :: explore?steps=onboarding_viewed,flow_builder_opened%7Clibrary_viewed,flow_draft_created&order=any"
)
# shellcheck disable=SC2086
[ -n "$ONLY" ] && [ "$ONLY" != trend ] || for trend in "${trends[@]}"; do measure trend $trend; done
# shellcheck disable=SC2086
[ -n "$ONLY" ] && [ "$ONLY" != retention ] || for retention in "${retentions[@]}"; do measure retention $retention; done
# shellcheck disable=SC2086
[ -n "$ONLY" ] && [ "$ONLY" != paths ] || for path in "${paths[@]}"; do measure paths $path; done
# shellcheck disable=SC2086
[ -n "$ONLY" ] && [ "$ONLY" != funnel ] || for funnel in "${funnels[@]}"; do measure funnel $funnel; done
