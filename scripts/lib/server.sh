# Sourced by the check scripts that start `handz-analytics serve` themselves.
#
#   source scripts/lib/server.sh
#   handz_bin                       # BIN: $HANDZ_BIN made absolute (scripts/test.sh sets it to its one
#                                   # build's binary), or the debug build (built first)
#   wait_for_port LOG PID           # PORT: the port the server printed to LOG (bounded: 30 s);
#                                   # exits 1 with the log when it did not start

handz_bin() {
  if [ -n "${HANDZ_BIN:-}" ]; then
    BIN="$(cd "$(dirname "$HANDZ_BIN")" && pwd)/$(basename "$HANDZ_BIN")"
  else
    swift build --product handz-analytics >/dev/null
    BIN="$(swift build --show-bin-path)/handz-analytics"
  fi
}

wait_for_port() {
  PORT=""
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's/^listening on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$1" | tail -1)
    [ -n "$PORT" ] && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  echo "the server did not start"; cat "$1"; exit 1
}
