#!/usr/bin/env bash
# Validation benchmark: the project's validator beside msgspec and jsonschema-rs, one run, one core,
# the same 1,000,000-event corpus (about 30% invalid across every error code), parsing included.
#
#   scripts/bench-validate.sh [EVENTS]        (default 1000000)
#
# Everything runs pinned to one CPU (taskset) so every validator gets exactly one core.
# Figures go to BENCHMARKS.md with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
events="${1:-1000000}"
work="${BENCH_DIR:-.build-bench}"
mkdir -p "$work"

swift build -c release --product handz-analytics >/dev/null
swift build -c release --product handz-bench >/dev/null
bin=$(swift build -c release --show-bin-path)

if [ ! -d "$work/venv" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install --quiet msgspec jsonschema-rs orjson
fi

corpus="$work/corpus-$events.ndjson"
[ -f "$corpus" ] || "$bin/handz-analytics" corpus --count "$events" --seed 1 --out "$corpus"
"$bin/handz-analytics" catalog export-jsonschema --out "$work/schemas" 2>/dev/null

cpu=$(( $(nproc) - 1 ))
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); pinned to CPU $cpu"
echo "corpus: $corpus ($(wc -c < "$corpus") bytes, $events events)"
handz_output=$(taskset -c "$cpu" "$bin/handz-bench" validate "$corpus" --passes 5)
echo "$handz_output"
handz=$(echo "$handz_output" | sed -n 's/.*best [0-9.]* s = \([0-9]*\) events\/s.*/\1/p')
peers=$(taskset -c "$cpu" "$work/venv/bin/python" scripts/bench/validate_peers.py --schemas "$work/schemas" --corpus "$corpus" --passes 3)
echo "$peers"
msgspec=$(echo "$peers" | sed -n 's/^msgspec: .* = \([0-9]*\) events\/s/\1/p')
jsonschema_rs=$(echo "$peers" | sed -n 's/^jsonschema-rs: .* = \([0-9]*\) events\/s/\1/p')
python3 - "$handz" "$msgspec" "$jsonschema_rs" <<'PY'
import sys
handz, msgspec, rs = (float(x) for x in sys.argv[1:])
print(f"ratio: handz / msgspec = {handz / msgspec:.1f}x, handz / jsonschema-rs = {handz / rs:.1f}x")
PY
