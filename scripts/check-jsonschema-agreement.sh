#!/usr/bin/env bash
# The JSON Schema export agrees with the validator, event by event: python-jsonschema (an
# independent implementation) and `handz-analytics validate` judge the same generated corpus.
# See Tests/Interop/jsonschema_agreement.py for what "agree" means; then both judge randomly
# mutated events (Tests/Interop/jsonschema_mutations.py, issue 18 item 2).
set -euo pipefail
cd "$(dirname "$0")/.."
work="${WORK_DIR:-.build-ci}/jsonschema"
venv="${WORK_DIR:-.build-ci}/venv"
mkdir -p "$work"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "jsonschema==4.*"

source scripts/lib/server.sh
handz_bin
bin=$(dirname "$BIN")
# 20,000 lines: python-jsonschema spends about 4 ms on each (the catalog schema's 76 if/then
# branches), so 60,000 took 236 s of a CI lane; at 20,000 every enabled event still has at least
# 150 valid lines and every mutation appears (the agreement script fails if either stops holding).
"$bin/handz-analytics" corpus --count "${AGREEMENT_EVENTS:-20000}" --seed 20261122 --out "$work/corpus.ndjson" --labels "$work/labels.txt"
"$bin/handz-analytics" catalog export-jsonschema --out "$work/schemas" 2>/dev/null
"$bin/handz-analytics" validate --verdicts "$work/corpus.ndjson" > "$work/verdicts.ndjson" || true
"$venv/bin/python" Tests/Interop/jsonschema_agreement.py --schemas "$work/schemas" --corpus "$work/corpus.ndjson" \
  --labels "$work/labels.txt" --verdicts "$work/verdicts.ndjson"
# The same two validators on 20,000 randomly mutated events (seeded: a failure names its seed and
# keeps the events in $work/mutations).
"$venv/bin/python" Tests/Interop/jsonschema_mutations.py --schemas "$work/schemas" --corpus "$work/corpus.ndjson" \
  --labels "$work/labels.txt" --handz "$bin/handz-analytics" --count "${MUTATED_EVENTS:-20000}" --out "$work/mutations"
