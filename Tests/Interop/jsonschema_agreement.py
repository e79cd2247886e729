#!/usr/bin/env python3
"""Checks that an independent JSON Schema validator agrees with `handz-analytics validate`,
event by event, on a generated corpus.

Inputs (produced by the caller, see scripts/check-jsonschema-agreement.sh):
  --schemas DIR    output of `handz-analytics catalog export-jsonschema`
  --corpus FILE    NDJSON from `handz-analytics corpus`
  --labels FILE    one label per corpus line (`valid` or the mutation applied)
  --verdicts FILE  output of `handz-analytics validate --verdicts` on the corpus

The validator here is python-jsonschema (Draft 2020-12) with the exported catalog.schema.json;
it shares no code with the project. The two must give the same verdict on every line, except for
the documented differences, where the project must reject and python-jsonschema must accept —
no more and no less:
- what JSON Schema cannot express: duplicate keys, PII inside a well-formed value, an integer
  written as N.0;
- what Python's `re` gets wrong against ECMA-262: `$` matching before a final newline.
Output names lines and labels, never event values.
"""
import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

INVISIBLE = {"duplicate_key", "pii_value", "type_mismatch:fractional_integer", "invalid_format:trailing_newline"}


def reject_constant(name):
    raise ValueError("non-standard JSON constant")


def load_validator(schemas: str) -> Draft202012Validator:
    """python-jsonschema (Draft 2020-12) over the exported catalog.schema.json, the schema itself
    checked first (the schema is the validator's `.schema`)."""
    schema = json.loads(Path(schemas, "catalog.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_verdict(validator, raw: bytes) -> bool:
    try:
        text = raw.decode("utf-8", errors="strict")
        instance = json.loads(text, parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError):
        return False
    return validator.is_valid(instance)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemas", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--labels", required=True)
    parser.add_argument("--verdicts", required=True)
    args = parser.parse_args()

    validator = load_validator(args.schemas)

    corpus = Path(args.corpus).read_bytes().split(b"\n")
    if corpus and corpus[-1] == b"":
        corpus.pop()
    labels = Path(args.labels).read_text().splitlines()
    verdicts = {}
    for line in Path(args.verdicts).read_text().splitlines():
        record = json.loads(line)
        verdicts[record["line"]] = record["status"] == "accepted"

    if not (len(corpus) == len(labels) == len(verdicts)):
        print(f"length mismatch: corpus {len(corpus)}, labels {len(labels)}, verdicts {len(verdicts)}")
        return 1

    outcomes = Counter()
    failures = []
    for index, (raw, label) in enumerate(zip(corpus, labels), start=1):
        ours = verdicts[index]
        theirs = schema_verdict(validator, raw)
        if label in INVISIBLE:
            ok = (not ours) and theirs
            outcomes["documented difference" if ok else "unexpected"] += 1
        else:
            ok = ours == theirs
            outcomes[("agree: accepted" if ours else "agree: rejected") if ok else "unexpected"] += 1
        if not ok:
            failures.append((index, label, ours, theirs))

    # The corpus is sized for CI time (see scripts/check-jsonschema-agreement.sh), so it proves
    # it is still big enough: every enabled event's schema judged at least one valid line, and
    # every documented difference was seen.
    valid_events = Counter()
    for raw, label in zip(corpus, labels):
        if label == "valid":
            valid_events[json.loads(raw)["event_name"]] += 1
    unjudged = [name for name in validator.schema["properties"]["event_name"]["enum"] if valid_events[name] == 0]
    unseen = sorted(INVISIBLE - set(labels))
    if unjudged or unseen:
        print(f"corpus too small: {len(unjudged)} event(s) without a valid line, labels never seen: {unseen}")
        return 1

    for key in sorted(outcomes):
        print(f"{key:>24}: {outcomes[key]}")
    for index, label, ours, theirs in failures[:20]:
        print(f"line {index} ({label}): handz {'accepted' if ours else 'rejected'}, jsonschema {'accepted' if theirs else 'rejected'}")
    if failures:
        print(f"{len(failures)} line(s) disagree")
        return 1
    print(f"all {len(corpus)} lines agree (documented differences: {outcomes['documented difference']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
