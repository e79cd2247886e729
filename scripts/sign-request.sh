#!/usr/bin/env bash
# Prints the HZ2 signature (hex) of one request, with openssl — the reference for shell clients,
# used by send-batch.sh and checked against docs/signature-vectors.json by SignatureVectorTests.
#
#   scripts/sign-request.sh SECRET_HEX TS METHOD PATH QUERY BODY_FILE
#
# The HMAC-SHA256 key is the 32 bytes the 64 hex digits spell (openssl's hexkey:), not the text.
# The signed bytes: "HZ2\n" METHOD "\n" PATH "\n" QUERY "\n" TS "\n", then the body as sent.
set -euo pipefail
secret="$1"; ts="$2"; method="$3"; path="$4"; query="$5"; body="$6"
{ printf 'HZ2\n%s\n%s\n%s\n%s\n' "$method" "$path" "$query" "$ts"; cat "$body"; } \
  | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$secret" -r | cut -d' ' -f1
