#!/usr/bin/env bash
# Signs and sends one batch to the ingestion endpoint with curl — the HZ2-HMAC-SHA256 scheme in a
# few lines, for trying the server by hand and as a reference for other clients.
#
#   scripts/send-batch.sh KEY_ID SECRET_HEX BODY.json [URL]
#
# BODY.json is a batch: {"events": [ ... ]}. The body is gzip-compressed, then signed as sent,
# with the method, path and (empty) query of the request:
#   sig = hex(HMAC-SHA256(secret, "HZ2\nPOST\n/v1/batch\n\n<unix seconds>\n" + <gzip bytes>))
set -euo pipefail
key_id="$1"; secret="$2"; body="$3"; url="${4:-http://127.0.0.1:8080}"
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
gzip -c < "$body" > "$tmp"
ts=$(date +%s)
sig=$("$(dirname "$0")/sign-request.sh" "$secret" "$ts" POST /v1/batch "" "$tmp")
curl -sS -X POST "$url/v1/batch" \
  -H 'Content-Type: application/json' -H 'Content-Encoding: gzip' \
  -H "Authorization: HZ2-HMAC-SHA256 key=$key_id, ts=$ts, sig=$sig" \
  --data-binary @"$tmp"
echo
