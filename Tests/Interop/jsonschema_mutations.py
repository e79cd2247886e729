#!/usr/bin/env python3
"""Differential check (issue 18 item 2): the validator and python-jsonschema judge the same
randomly mutated events, and must agree on every one of them.

`jsonschema_agreement.py` compares the two on the corpus's twenty named mutations, one per error
code. This script goes further: it takes the corpus's valid events as seeds and applies one to
three random mutations to each — drop, add or rename a key, change a value's type, edit a string
or a number by small steps, swap in a value from another event, flip, insert or delete a byte,
duplicate a key — so the two validators meet inputs nobody wrote a case for.

Inputs:
  --schemas DIR   output of `handz-analytics catalog export-jsonschema`
  --corpus FILE   NDJSON from `handz-analytics corpus`; the lines labelled `valid` are the seeds
  --labels FILE   one label per corpus line
  --handz PATH    the `handz-analytics` binary (runs `validate --verdicts` on the mutations)
  --count N       how many mutated events (default 30000)
  --seed S        the random seed (default 20261125): a failure is reproduced by the same seed
  --out DIR       where the mutated events and verdicts are written (kept for a failing run)

"Agree" means the same verdict, except where the HandzCatalog docs ("JSON Schema export and its
documented differences") say the project rejects and JSON Schema cannot: the project must reject and
python-jsonschema accept, and each error the project reports must be one of those differences,
checked against the event itself:
- `duplicate_key`: the line really holds an object with a repeated key;
- `pii_value`: PII inside a well-formed value (a pattern the schema cannot express), only on a
  value holding one of the synthetic PII samples this script inserts;
- `type_mismatch` on a number with a zero fraction (`3.0` is an integer to JSON Schema);
- `invalid_format`, `invalid_uuid` or `invalid_timestamp` on a string that ends in a newline
  (the schema's patterns end in `$`, which Python's `re` lets match before a final newline);
- `too_large`: a line over the catalog's 32,768-byte event limit (JSON Schema sees no byte sizes).
Anything else is a disagreement and fails the run. Output names line numbers, mutation names and
error codes, never event values.
"""
import argparse
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

# The agreement check's schema loading and its refusal of NaN and Infinity (this directory is on the path
# when the script is run).
from jsonschema_agreement import load_validator, reject_constant

MAX_EVENT_BYTES = 32_768

# Strings a mutation may put in place of, or into, a value: empty, whitespace, near-misses of
# the envelope's formats, synthetic PII of every kind the lint knows, non-ASCII digits and letters,
# escapes JSON allows but a byte scanner might not expect.
INTERESTING_STRINGS = [
    "", " ", "\n", "\t", "a", "A", "0", "-1", "1.0", "true", "null", "x" * 65, "x" * 300,
    "019c9970-ecc0-7b46-ad6e-597759599f78", "019C9970-ECC0-7B46-AD6E-597759599F78",
    "019c9970ecc07b46ad6e597759599f78", "{019c9970-ecc0-7b46-ad6e-597759599f78}",
    "2026-02-26T10:14:00.640Z", "2026-02-26T10:14:00Z", "2026-02-26 10:14:00", "2026-02-30T10:14:00.000Z",
    "2026-02-26T10:14:00.640+01:00", "1772100840", "iOS", "ios", "Android",
    "jane.doe@example.com", "jane.doe(at)example.com", "+1 415 555 0100", "(415) 555-0100",
    "4155550100", "Jane Doe", "my note about the session", "https://example.com/u/jane",
    "1.3.9", "1.3", "1.3.9-beta", "٣", "１２", "é", "e\u0301", "\u00a0", "\u200b", "\ud83e\udd4b",
    "onboarding", "settings/privacy", "Settings/Privacy", "en_US", "en-US", "Europe/Paris",
]
# The synthetic PII among those strings: a `pii_value` rejection is excused only on a value holding
# one of them (a phone-number-shaped run of ten digits included).
PII_SAMPLES = [
    "jane.doe@example.com", "jane.doe(at)example.com", "+1 415 555 0100", "(415) 555-0100", "4155550100",
    "1772100840", "Jane Doe", "my note about the session", "https://example.com/u/jane",
]
INTERESTING_NUMBERS = [
    0, 1, -1, 2, 7, 59, 60, 99, 100, 101, 255, 256, 1000, 3600, 86400, 2**31 - 1, 2**31, 2**53,
    2**53 + 1, 2**63 - 1, 2**63, -(2**63), 10**20, 0.5, 1.5, -0.0, 3.0, 1e3, 1e308, 1e-7,
]
KEY_NAMES = [
    "", "x", "email", "note", "notes", "user_name", "phone", "Properties", "properties ", "event-name",
    "ÉVÉNEMENT", "a" * 70, "screen_name", "entry_point", "mode", "result", "source", "reason",
]


def random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(8 if depth < 2 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice(INTERESTING_NUMBERS)
    if kind in (3, 4):
        return rng.choice(INTERESTING_STRINGS)
    if kind == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(KEY_NAMES): random_value(rng, depth + 1) for _ in range(rng.randrange(3))}


def containers(event):
    """The event and its `properties` object when it is one: where keys are mutated."""
    found = [event]
    if isinstance(event.get("properties"), dict):
        found.append(event["properties"])
    return found


def tweak_string(rng: random.Random, text: str) -> str:
    choice = rng.randrange(9)
    extra = rng.choice(INTERESTING_STRINGS) or "z"
    if choice == 0:
        return text + extra[:3]
    if choice == 1:
        return extra[:3] + text
    if choice == 2:
        return text[: rng.randrange(len(text) + 1)]
    if choice == 3:
        return text.upper()
    if choice == 4 and text:
        at = rng.randrange(len(text))
        return text[:at] + rng.choice("aZ0-_/.:@ ٣\u00e9") + text[at + 1:]
    if choice == 5:
        return text + "\n"
    if choice == 6:
        return text * 2
    if choice == 7:
        return " " + text
    return extra


def tweak_number(rng: random.Random, number):
    choice = rng.randrange(7)
    if choice == 0:
        return number + 1
    if choice == 1:
        return number - 1
    if choice == 2:
        return -number
    if choice == 3:
        return float(number)
    if choice == 4:
        return number * 1000
    if choice == 5:
        return number + 0.25
    return rng.choice(INTERESTING_NUMBERS)


def mutate_object(rng: random.Random, event: dict, seeds: list) -> str:
    """One structural mutation in place; returns its name."""
    target = rng.choice(containers(event))
    keys = list(target.keys())
    operator = rng.randrange(8)
    if operator == 0 and keys:
        del target[rng.choice(keys)]
        return "drop_key"
    if operator == 1:
        target[rng.choice(KEY_NAMES + keys)] = random_value(rng)
        return "add_key"
    if operator == 2 and keys:
        key = rng.choice(keys)
        target[rng.choice(KEY_NAMES)] = target.pop(key)
        return "rename_key"
    if operator == 3 and keys:
        target[rng.choice(keys)] = random_value(rng)
        return "retype_value"
    if operator == 4 and keys:
        key = rng.choice(keys)
        value = target[key]
        if isinstance(value, bool):
            target[key] = not value
            return "flip_bool"
        if isinstance(value, (int, float)):
            target[key] = tweak_number(rng, value)
            return "tweak_number"
        if isinstance(value, str):
            target[key] = tweak_string(rng, value)
            return "tweak_string"
        target[key] = random_value(rng)
        return "retype_value"
    if operator == 5 and keys:
        # A value from another valid event under the same key, or any key: often still valid.
        other = rng.choice(seeds)
        pool = [c for c in containers(other) if c]
        source = rng.choice(pool)
        key = rng.choice(keys)
        target[key] = source.get(key, source[rng.choice(list(source.keys()))])
        return "borrow_value"
    if operator == 6:
        other = rng.choice(seeds)
        event["event_name"] = other.get("event_name", "x")
        return "swap_event_name"
    if operator == 7:
        event["properties"] = rng.choice([None, [], "", {}, 0, random_value(rng), {"nested": {"deeper": {}}}])
        return "replace_properties"
    target[rng.choice(KEY_NAMES)] = random_value(rng)
    return "add_key"


def mutate_bytes(rng: random.Random, raw: bytearray) -> str:
    """One byte-level mutation in place; never a newline (a line is one event)."""
    if not raw:
        raw.extend(b"{}")
    operator = rng.randrange(4)
    at = rng.randrange(len(raw))
    byte = rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0x80, 0x100), 0x00, 0x09, 0x22, 0x5c, 0x7b, 0x7d, 0x2c, 0x3a])
    if operator == 0:
        raw[at] = byte
        return "flip_byte"
    if operator == 1:
        raw.insert(at, byte)
        return "insert_byte"
    if operator == 2:
        del raw[at]
        return "delete_byte"
    # Repeat the first member of the object after the opening brace: a duplicate key.
    end = raw.find(b",")
    if raw[:1] == b"{" and end > 1:
        raw[1:1] = raw[1:end + 1]
        return "duplicate_key_text"
    raw[at] = byte
    return "flip_byte"


def mutate(rng: random.Random, seed: dict, seeds: list):
    event = json.loads(json.dumps(seed))
    names = [mutate_object(rng, event, seeds) for _ in range(rng.randrange(1, 4))]
    raw = bytearray(json.dumps(event, separators=(",", ":"), ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass"))
    if rng.random() < 0.25:
        names.append(mutate_bytes(rng, raw))
    raw = bytes(b if b not in (0x0A, 0x0D) else 0x20 for b in raw)
    return raw, "+".join(names)


def has_duplicate_keys(raw: bytes) -> bool:
    found = False

    def hook(pairs):
        nonlocal found
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            found = True
        return dict(pairs)

    try:
        json.loads(raw.decode("utf-8"), object_pairs_hook=hook, parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError):
        return False
    return found


def parse(raw: bytes):
    try:
        return True, json.loads(raw.decode("utf-8", errors="strict"), parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, None


def at_pointer(instance, pointer: str):
    node = instance
    for part in [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]] if pointer else []:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def documented_difference(raw: bytes, instance, error: dict) -> bool:
    code, path = error["code"], error.get("path", "")
    if code == "duplicate_key":
        return has_duplicate_keys(raw)
    if code == "pii_value":
        # Only where this script put PII (or a PII-shaped run of digits) into the value.
        value = at_pointer(instance, path)
        return isinstance(value, str) and any(sample in value for sample in PII_SAMPLES)
    if code == "too_large":
        return len(raw) > MAX_EVENT_BYTES
    value = at_pointer(instance, path)
    if code == "type_mismatch":
        return isinstance(value, float) and value.is_integer()
    if code in ("invalid_format", "invalid_uuid", "invalid_timestamp"):
        return isinstance(value, str) and value.endswith("\n")
    return False


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemas", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--labels", required=True)
    parser.add_argument("--handz", required=True)
    parser.add_argument("--count", type=int, default=30000)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    validator = load_validator(args.schemas)

    lines = Path(args.corpus).read_bytes().split(b"\n")
    labels = Path(args.labels).read_text().splitlines()
    seeds = [json.loads(line) for line, label in zip(lines, labels) if label == "valid"]
    if not seeds:
        print("no valid seed events in the corpus")
        return 1

    rng = random.Random(args.seed)
    mutated, names = [], []
    while len(mutated) < args.count:
        raw, name = mutate(rng, rng.choice(seeds), seeds)
        if raw.strip():
            mutated.append(raw)
            names.append(name)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    events_path = out / "mutations.ndjson"
    events_path.write_bytes(b"\n".join(mutated) + b"\n")
    result = subprocess.run([args.handz, "validate", "--verdicts", str(events_path)], capture_output=True)
    verdict_lines = result.stdout.decode().splitlines()
    (out / "verdicts.ndjson").write_text("\n".join(verdict_lines) + "\n")
    verdicts = {}
    for line in verdict_lines:
        record = json.loads(line)
        verdicts[record["line"]] = record
    if len(verdicts) != len(mutated):
        print(f"length mismatch: {len(mutated)} mutations, {len(verdicts)} verdicts (exit {result.returncode})")
        return 1

    outcomes = Counter()
    failures = []
    for index, (raw, name) in enumerate(zip(mutated, names), start=1):
        record = verdicts[index]
        ours = record["status"] == "accepted"
        parsed, instance = parse(raw)
        theirs = parsed and validator.is_valid(instance)
        if ours == theirs:
            outcomes["agree: accepted" if ours else "agree: rejected"] += 1
            continue
        errors = record.get("errors", [])
        # A value that fails its format (or a repeated key's second value) is scanned as free text
        # for PII, where a UUID's digit groups can look like a phone number: a pii_value on a path
        # that also carries a documented difference is part of that difference.
        explained = {e.get("path") for e in errors if e["code"] != "pii_value" and documented_difference(raw, instance, e)}
        errors = [e for e in errors if not (e["code"] == "pii_value" and e.get("path") in explained)]
        if not ours and theirs and errors and all(documented_difference(raw, instance, e) for e in errors):
            outcomes["documented difference"] += 1
            continue
        outcomes["unexpected"] += 1
        codes = ",".join(sorted({e["code"] for e in errors})) or "-"
        failures.append((index, name, ours, theirs, codes))

    for key in sorted(outcomes):
        print(f"{key:>24}: {outcomes[key]}")
    for index, name, ours, theirs, codes in failures[:25]:
        print(f"line {index} ({name}): handz {'accepted' if ours else 'rejected'} [{codes}], "
              f"jsonschema {'accepted' if theirs else 'rejected'}")
    if failures:
        print(f"{len(failures)} of {len(mutated)} mutated events disagree (seed {args.seed}; events kept in {out})")
        return 1
    print(f"all {len(mutated)} mutated events agree (seed {args.seed}; documented differences: "
          f"{outcomes['documented difference']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
