#!/usr/bin/env bash
# An app's first build (issue 23): examples/ConsumerApp depends on this package the way the iOS
# guide says (`traits: []`, the client product only). This script lays it out next to a copy of
# the repository named HandzAnalytics, prints the packages it resolves and fails past the budget,
# builds it, and has it send a batch to a real `handz-analytics serve` on loopback, which must
# store the event.
#
#   scripts/check-consumer.sh                       # builds handz-analytics first
#   HANDZ_BIN=path/to/handz-analytics scripts/check-consumer.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
# Packages an app that uses only the client resolves, besides this one (HandzAnalyticsClient
# docs, "The first hour"): swift-crypto and swift-asn1 on Linux. Apple platforms use CryptoKit,
# but SwiftPM resolves platform-conditioned packages everywhere, so the figure is the same there.
BUDGET=2
source scripts/lib/workdir.sh
source scripts/lib/server.sh
work_run_dir consumer

handz_bin

# The repository as an app's checkout would hold it (tracked files only, no build folders).
copy_repository "$RUN/HandzAnalytics"
cp -R "$ROOT/examples/ConsumerApp" "$RUN/ConsumerApp"
app="$RUN/ConsumerApp"

swift package --package-path "$app" show-dependencies --format json 2> "$RUN/resolve.log" > "$RUN/dependencies.json" \
  || { tail -20 "$RUN/resolve.log"; exit 1; }
resolved=$(python3 - "$RUN/dependencies.json" <<'PY'
import json, sys
seen = set()
def walk(node):
    for child in node.get("dependencies", []):
        seen.add(child["identity"])
        walk(child)
walk(json.load(open(sys.argv[1])))
seen.discard("handzanalytics")
print(" ".join(sorted(seen)))
PY
)
count=$(wc -w <<< "$resolved")
echo "an app using only the client resolves HandzAnalytics and $count more: ${resolved:-none} (budget $BUDGET)"
[ "$count" -le "$BUDGET" ] || { echo "over the budget of $BUDGET packages"; exit 1; }

# No index store and no debug information: neither is read here, and both cost build time.
swift build --package-path "$app" --disable-index-store -debug-info-format none > "$RUN/build.log" 2>&1 || { tail -30 "$RUN/build.log"; exit 1; }
tail -1 "$RUN/build.log"
consumer="$(swift build --package-path "$app" --show-bin-path)/ConsumerApp"

# A real server with a fresh store and key.
keys="$RUN/handz-keys.json"
"$BIN" keys create --keys "$keys" --scope ingest >/dev/null
key_id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['keys'][0]['id'])" "$keys")
(cd "$RUN" && exec "$BIN" serve --catalog "$ROOT/catalog" --db "$RUN/events.sqlite" --keys "$keys" \
   --host 127.0.0.1 --port 0 --log-level warning > "$RUN/server.log" 2>&1) &
server=$!
trap 'kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
wait_for_port "$RUN/server.log" "$server"
port=$PORT

# The secret goes to the app in its environment (not its command line, which `ps` shows), read
# from the keys file, never printed.
HANDZ_SECRET_HEX=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['keys'][0]['secret'])" "$keys") \
  timeout 60 "$consumer" "http://127.0.0.1:$port" "$key_id" "$RUN/queue.sqlite"
# The store is a segment store (the default): once serve has stopped, its events are read back
# as an events table (`export sqlite`).
kill -TERM "$server"; wait "$server" 2>/dev/null || true
"$BIN" export sqlite --db "$RUN/events.sqlite" --out "$RUN/stored.sqlite" > /dev/null
stored=$(sqlite3 "$RUN/stored.sqlite" "SELECT COUNT(*) FROM events WHERE event_name = 'app_open'")
[ "$stored" = 1 ] || { echo "the server stored $stored app_open events, expected 1"; exit 1; }
# The pinned client's event, with the catalog version its generated snapshot names.
pinned_version=$(sed -n 's/.*(catalog \([0-9.]*\)).*/\1/p' "$app/Sources/ConsumerApp/Analytics/CatalogSnapshot.swift" | head -1)
pinned=$(sqlite3 "$RUN/stored.sqlite" "SELECT COUNT(*) FROM events WHERE event_name = 'screen_viewed' AND catalog_version = '$pinned_version'")
[ "$pinned" = 1 ] || { echo "the server stored $pinned screen_viewed events with catalog $pinned_version from the pinned client, expected 1"; exit 1; }
# The app passed no device context: the system's (SystemDeviceContext) was read from this machine.
machine=$(uname -m); [ "$machine" = aarch64 ] && machine=arm64
model=$(sqlite3 "$RUN/stored.sqlite" "SELECT device_model FROM events WHERE event_name = 'app_open'")
[ "$model" = "$machine" ] || { echo "device_model is '$model', expected this machine's '$machine'"; exit 1; }
echo "the consumer app's event was accepted and stored"
