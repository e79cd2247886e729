#!/usr/bin/env python3
"""Peer validators for the validation benchmark: the same NDJSON corpus through
msgspec and jsonschema-rs, one process, one core, parsing included.

  python3 validate_peers.py --schemas DIR --corpus FILE [--passes N]

Both peers are driven by the schemas `handz-analytics catalog export-jsonschema` wrote, so they
check the same catalog rules (types, enums, patterns, ranges, required and unknown keys):
- jsonschema-rs: orjson parses each line, the event's compiled schema validates it (dispatch on
  event_name, as an application would);
- msgspec: one tagged-union decoder built from the schemas (tag = event_name), which parses and
  validates in one step.
Neither can check duplicate keys or scan values for PII; the accepted counts printed show it.
"""
import argparse
import json
import re
import time
from pathlib import Path
from typing import Annotated, Literal, Union

import jsonschema_rs
import msgspec
import orjson


def load_lines(path):
    data = Path(path).read_bytes()
    return [line for line in data.split(b"\n") if line.strip()]


def event_schemas(directory):
    schemas = {}
    for path in sorted(Path(directory).glob("*.schema.json")):
        if path.name == "catalog.schema.json":
            continue
        schema = json.loads(path.read_text())
        schemas[schema["title"]] = schema
    return schemas


# ---------------------------------------------------------------- jsonschema-rs

def jsonschema_rs_validator(schemas):
    validators = {name: jsonschema_rs.validator_for(schema) for name, schema in schemas.items()}

    def validate(line):
        try:
            instance = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        if not isinstance(instance, dict):
            return False
        validator = validators.get(instance.get("event_name"))
        return validator is not None and validator.is_valid(instance)

    return validate


# ---------------------------------------------------------------- msgspec

def msgspec_type(schema, defs):
    if "$ref" in schema:
        return msgspec_type(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "const" in schema:
        return Literal[schema["const"]]
    if "enum" in schema:
        return Literal[tuple(schema["enum"])]
    kind = schema["type"]
    if isinstance(kind, list):
        # `type: [string, integer]` (build_number, CH33 §3.2 "string/int"): each alternative with
        # the keywords that apply to it.
        return Union[tuple(msgspec_type({**schema, "type": one}, defs) for one in kind)]
    if kind == "boolean":
        return bool
    if kind == "integer":
        return Annotated[int, msgspec.Meta(ge=schema.get("minimum"), le=schema.get("maximum"))]
    if kind == "string":
        if "pattern" in schema:
            return Annotated[str, msgspec.Meta(pattern=schema["pattern"])]
        return str
    raise ValueError(f"unsupported schema {schema}")


def struct_from(name, schema, defs, **options):
    required = set(schema.get("required", []))
    fields = []
    for key, sub in schema["properties"].items():
        if key == "event_name":
            continue  # the union's tag
        if key == "properties":
            annotation = struct_from(name + "_properties", sub, defs, forbid_unknown_fields=True)
        else:
            annotation = msgspec_type(sub, defs)
        if key in required:
            fields.append((key, annotation))
        else:
            fields.append((key, Union[annotation, msgspec.UnsetType], msgspec.UNSET))
    fields.sort(key=lambda field: len(field) == 3)  # required fields first
    return msgspec.defstruct(re.sub(r"\W", "_", name), fields, **options)


def msgspec_validator(schemas):
    events = []
    for name, schema in schemas.items():
        defs = schema.get("$defs", {}).get("props", {})
        events.append(struct_from(name, schema, defs, tag_field="event_name", tag=name, forbid_unknown_fields=True))
    decoder = msgspec.json.Decoder(Union[tuple(events)])

    def validate(line):
        try:
            decoder.decode(line)
            return True
        except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError):
            return False

    return validate


def measure(name, validate, lines, passes):
    timings = []
    accepted = 0
    for _ in range(passes):
        accepted = 0
        start = time.perf_counter()
        for line in lines:
            if validate(line):
                accepted += 1
        timings.append(time.perf_counter() - start)
    best = min(timings)
    rate = len(lines) / best
    print(f"{name}: {len(lines)} events ({accepted} accepted), best of {passes} passes {best:.3f} s = {rate:.0f} events/s")
    return rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemas", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    lines = load_lines(args.corpus)
    schemas = event_schemas(args.schemas)
    measure("msgspec", msgspec_validator(schemas), lines, args.passes)
    measure("jsonschema-rs", jsonschema_rs_validator(schemas), lines, args.passes)


if __name__ == "__main__":
    main()
