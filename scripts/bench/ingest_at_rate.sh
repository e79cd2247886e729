#!/usr/bin/env bash
# The ingestion endpoint's latency at one fixed rate (issue 34, "p99 at half the saturation rate"):
# `serve --engine segments` from BIN_DIR on a fresh store, handz-load from the same directory on an
# open loop at RATE events/s for 15 s over 128 connections; prints handz-load's latency line. Run two
# binaries' directories in turn to pair them (BENCHMARKS.md, "The segment log", third slice).
#
#   scripts/bench/ingest_at_rate.sh BIN_DIR RATE
set -euo pipefail
bin=$1 rate=$2 catalog="$(cd "$(dirname "$0")/../.." && pwd)/catalog"
work=$(mktemp -d /tmp/handz-at-rate.XXXXXX)
(cd "$work" && exec "$bin/handz-analytics" serve --catalog "$catalog" --port 0 --log-level warning \
   --max-concurrent-requests 512 --engine segments > server.log 2>&1) &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 200); do grep -q "listening on" "$work/server.log" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$work/server.log")
"$bin/handz-load" --url "http://127.0.0.1:$port" --keys "$work/handz-keys.json" --catalog "$catalog" \
  --connections 128 --seconds 15 --rate "$rate" 2>/dev/null | grep latency
kill -TERM $pid; wait $pid || true
