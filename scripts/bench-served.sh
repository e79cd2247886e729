#!/usr/bin/env bash
# Served dashboards benchmark (issue 16; not run in CI): `serve` on an existing store, an analyst
# signed in with curl, then each of the six dashboards over the store's days (`range=all`) three
# times — computed (cache miss), reloaded (cache hit), and with the previous period (compare) —
# and the explorer with F0's first three steps. Prints seconds per request as curl measures them
# (time to the last byte, on loopback). The peer, in the same run and before the server starts:
# `dashboard render` of all six dashboards over the same days (the static report, same queries).
# Figures go to BENCHMARKS.md, "Served dashboards".
# Usage: HANDZ_BIN=path/to/release/handz-analytics scripts/bench-served.sh STORE.sqlite
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/workdir.sh
source scripts/lib/server.sh
work_run_dir bench-served
STORE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
handz_bin
started=$(date +%s.%N)
"$BIN" dashboard render --db "$STORE" --out "$RUN/report" >/dev/null 2>&1
printf '%-34s %s %.3f\n' "peer: dashboard render (6 pages)" "---" "$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
keys="$RUN/keys.json"
out=$("$BIN" keys create --keys "$keys" --scope analyst)
id=$(sed -n 's/^key id: *//p' <<<"$out"); secret=$(sed -n 's/^secret: *//p' <<<"$out")
"$BIN" serve --db "$STORE" --keys "$keys" --host 127.0.0.1 --port 0 --log-level warning > "$RUN/serve.log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
wait_for_port "$RUN/serve.log" "$server"
base="http://127.0.0.1:$PORT"
jar="$RUN/cookies"
curl -s -o /dev/null -c "$jar" --data-urlencode "key_id=$id" --data-urlencode "secret=$secret" "$base/dashboards/login"
unset secret
fetch() {  # fetch LABEL PATH: prints status, seconds and the cache header
  local head="$RUN/head" timing
  timing=$(curl -s -D "$head" -o "$RUN/body.html" -b "$jar" --max-time 900 -w '%{http_code} %{time_total}' "$base$2")
  case "$timing" in 200*) ;; *) sed -n 's/.*class="error"[^>]*>\([^<]*\)<.*/\1/p' "$RUN/body.html";; esac
  printf '%-34s %s %s\n' "$1" "$timing" "$(sed -n 's/^X-Handz-Cache: *//Ip' "$head" | tr -d '\r')"
}
echo "store: $STORE ($(du -h "$STORE" | cut -f1))"
for d in launch_health activation_onboarding builder_usage sharing_loop practice_mastery monetization; do
  fetch "$d" "/dashboards/d/$d?range=all"
  fetch "$d (reload)" "/dashboards/d/$d?range=all"
  fetch "$d (compare)" "/dashboards/d/$d?range=all&compare=previous"
done
fetch "explorer, 3 steps" "/dashboards/explore?range=all&steps=app_open,onboarding_viewed,flow_builder_opened"
fetch "explorer, 3 steps (reload)" "/dashboards/explore?range=all&steps=app_open,onboarding_viewed,flow_builder_opened"
