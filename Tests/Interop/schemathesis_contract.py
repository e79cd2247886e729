#!/usr/bin/env python3
"""The HTTP contract (openapi.yaml) against a live `handz-analytics serve`, with schemathesis.

    python Tests/Interop/schemathesis_contract.py --url http://127.0.0.1:PORT --keys KEYS.json \
        [--schema openapi.yaml] [--examples 100] [--seed N] [--with-document] \
        [--body-timeout S] [--install-burst N] [--catalog-copy DIR] [-- PYTEST ARGS]

Needs schemathesis==4.32.5 (the API used here is 4.x's) and pytest: scripts/check-openapi.sh
installs them in a venv, starts the server with fresh keys and store, and runs this. It runs
pytest on this file:

- `test_operation`: schemathesis generates requests for every operation of the document (its
  examples, coverage and fuzzing phases; positive and negative data; at most --examples per
  operation in the fuzzing phase), and every answer must pass `not_a_server_error`,
  `status_code_conformance`, `content_type_conformance`, `response_headers_conformance` and
  `response_schema_conformance`.
- `test_scenario_*`: answers random generation cannot reach, each checked with the same checks: a
  maintenance window's 503 with Retry-After, 304 for If-None-Match, 413 from a declared
  Content-Length and for 1,001 events, 408 for a stalled body (--body-timeout), 429 for an
  install over its burst (--install-burst), 422 for a broken catalog (--catalog-copy), a replayed
  admin signature, HZ1, gzip, the HTTP parser's bodiless 400.
- `test_hz1_*`, `test_trickled_*`, `test_oversized_*`: defects this check found in the server (fixed in
  the same change), kept as regressions.

Signing (HandzServer docs, "Signed requests"; docs/signature-vectors.json): a requests auth hook
signs the prepared request, so the signature covers the exact target and body bytes sent (after the hook
gzips a body sent with `Content-Encoding: gzip`). One request in three is deliberately unsigned,
forged, stale, signed by an unknown, revoked or wrong-scope key, or HZ1, so the 401/403 answers are
exercised too. Each admin signature gets its own timestamp (the server refuses a replayed one).

Keys come from the server's keys file (--keys): an active ingest-only key, an active admin-only key,
and a revoked key. Nothing secret, and no event value, is printed: only operation names, statuses
and counts.

`GET /openapi.json` is checked with --with-document (scripts/check-openapi.sh passes it): it is
generated and tested like every operation, and the served document must equal openapi.yaml.
"""
from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import hmac
import json
import os
import socket
import sys
import threading
import time
from urllib.parse import urlsplit

REQUIREMENTS = ["schemathesis==4.32.5", "pytest==9.*"]  # pip requirement specifiers (scripts/check-openapi.sh)

ENV_PREFIX = "HANDZ_OPENAPI_"


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(ENV_PREFIX + name, default)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--keys", required=True, help="the server's keys file (an ingest key, an admin key, a revoked key)")
    parser.add_argument("--schema", default=os.path.join(os.path.dirname(__file__), "..", "..", "openapi.yaml"))
    parser.add_argument("--examples", type=int, default=100, help="most generated examples per operation (fuzzing phase)")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--body-timeout", type=float, default=0, help="the server's --body-timeout; 0 skips the 408 scenario")
    parser.add_argument("--with-document", action="store_true", help="include GET /openapi.json")
    parser.add_argument("--catalog-copy", default="", help="the catalog directory the server serves, a copy the 422 scenario "
                        "breaks and restores (omit to skip that scenario)")
    parser.add_argument("--install-burst", type=int, default=0, help="the server's --install-burst (at most 500); 0 skips the 429 scenario")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()
    os.environ[ENV_PREFIX + "URL"] = args.url.rstrip("/")
    os.environ[ENV_PREFIX + "KEYS"] = os.path.abspath(args.keys)
    os.environ[ENV_PREFIX + "SCHEMA"] = os.path.abspath(args.schema)
    os.environ[ENV_PREFIX + "EXAMPLES"] = str(args.examples)
    os.environ[ENV_PREFIX + "SEED"] = str(args.seed)
    os.environ[ENV_PREFIX + "BODY_TIMEOUT"] = str(args.body_timeout)
    os.environ[ENV_PREFIX + "CATALOG_COPY"] = os.path.abspath(args.catalog_copy) if args.catalog_copy else ""
    os.environ[ENV_PREFIX + "INSTALL_BURST"] = str(args.install_burst)
    if args.with_document:
        os.environ[ENV_PREFIX + "SKIP_DOCUMENT"] = "0"
    import importlib.metadata

    import pytest

    found = importlib.metadata.version("schemathesis")
    if found != REQUIREMENTS[0].split("==")[1]:
        print(f"needs {REQUIREMENTS[0]} (found {found}): pip install {' '.join(REQUIREMENTS)}", file=sys.stderr)
        return 2
    return pytest.main([
        os.path.abspath(__file__), "-q", "-p", "no:cacheprovider", "-o", "console_output_style=classic",
        "--tb=short", "-W", "ignore::DeprecationWarning", *args.pytest_args,
    ], plugins=[ContractSummary()])


class ContractSummary:
    """Prints the run's figures after pytest's own summary: per operation the answers by status,
    the signing modes, the number of requests and the time (never a secret or an event value)."""

    def pytest_terminal_summary(self, terminalreporter):
        tests = next((m for m in list(sys.modules.values()) if getattr(m, "_HANDZ_CONTRACT_STATS", False)), None)
        if tests is None:
            return
        write = terminalreporter.write_line
        write("")
        write("contract run: answers by operation and status")
        total = 0
        for label in sorted(tests.STATS):
            counts = tests.STATS[label]
            total += sum(counts.values())
            detail = ", ".join(f"{status}: {count}" for status, count in sorted(counts.items()))
            write(f"  {label}: {sum(counts.values())} ({detail})")
        modes = ", ".join(f"{mode}: {count}" for mode, count in sorted(tests.MODE_STATS.items()))
        write(f"  signing of generated requests: {modes}")
        write(f"  {total} requests in {time.monotonic() - tests.STARTED:.1f} s")


if __name__ == "__main__":
    sys.exit(main())


# ---------------------------------------------------------------------------------------------
# The tests (collected by pytest when main() runs it on this file).

import pytest  # noqa: E402
import requests  # noqa: E402
import schemathesis  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from urllib3.util.url import _encode_target  # noqa: E402  (what urllib3 puts on the request line)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from signing import hz2_signature  # noqa: E402

BASE_URL = _env("URL", "http://127.0.0.1:8080")
SCHEMA_PATH = _env("SCHEMA", os.path.join(os.path.dirname(__file__), "..", "..", "openapi.yaml"))
KEYS_PATH = _env("KEYS", "")
MAX_EXAMPLES = int(_env("EXAMPLES", "100"))
SEED = int(_env("SEED", "20261122"))
BODY_TIMEOUT = float(_env("BODY_TIMEOUT", "0"))
SKIP_DOCUMENT = _env("SKIP_DOCUMENT", "1") != "0"
CATALOG_COPY = _env("CATALOG_COPY", "")
INSTALL_BURST = int(_env("INSTALL_BURST", "0"))

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

ADMIN_PATHS = ("/v1/users/", "/v1/admin/", "/v1/deletions/")


# --- Keys ------------------------------------------------------------------------------------

class Key:
    def __init__(self, key_id: str, secret_hex: str):
        self.key_id = key_id
        self.secret = bytes.fromhex(secret_hex)  # the 32 bytes, not the 64 characters

    def __repr__(self) -> str:  # never the secret
        return f"Key({self.key_id})"


def load_keys(path: str) -> dict[str, Key]:
    with open(path, encoding="utf-8") as handle:
        keys = json.load(handle)["keys"]

    def pick(status: str, scopes: list[str]) -> Key:
        for key in keys:
            if key["status"] == status and sorted(key["scopes"]) == scopes:
                return Key(key["id"], key["secret"])
        raise SystemExit(f"the keys file needs a {status} key with exactly the scopes {scopes}")

    return {"ingest": pick("active", ["ingest"]), "admin": pick("active", ["admin"]), "revoked": pick("revoked", ["ingest"])}


KEYS = load_keys(KEYS_PATH) if KEYS_PATH else {}


# --- Signing ---------------------------------------------------------------------------------

def hz1_signature(secret: bytes, ts: int, body: bytes) -> str:
    return hmac.new(secret, f"{ts}.".encode() + body, hashlib.sha256).hexdigest()


def check_signature_vectors() -> None:
    """The signer reproduces docs/signature-vectors.json before it signs anything."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "signature-vectors.json")
    with open(path, encoding="utf-8") as handle:
        for vector in json.load(handle)["vectors"]:
            sig = hz2_signature(bytes.fromhex(vector["secret_hex"]), vector["ts"], vector["method"], vector["path"],
                                vector["query"], bytes.fromhex(vector["body_hex"]))
            expected = f"HZ2-HMAC-SHA256 key={vector['key_id']}, ts={vector['ts']}, sig={sig}"
            assert expected == vector["authorization"], f"signature vector '{vector['name']}' differs"


class AdminTimestamps:
    """Distinct `ts` for each admin request: an admin signature is accepted once (HandzServer
    docs, "Signed requests", "Replays"), and `ts` has one-second resolution, so two identical
    admin requests in the same second would share a signature. Picks the newest unused second within the 300 s window."""

    def __init__(self) -> None:
        self.used: set[tuple[str, int]] = set()
        self.lock = threading.Lock()

    def take(self, request_key: str) -> int:
        now = int(time.time())
        with self.lock:
            for back in range(0, 240):
                if (request_key, now - back) not in self.used:
                    self.used.add((request_key, now - back))
                    return now - back
        return now


ADMIN_TS = AdminTimestamps()


def target_of(prepared: requests.PreparedRequest) -> tuple[str, str]:
    """The path and query exactly as urllib3 writes them on the request line."""
    target = _encode_target(prepared.path_url)
    path, _, query = target.partition("?")
    return path, query


def body_of(prepared: requests.PreparedRequest) -> bytes:
    body = prepared.body
    if body is None:
        return b""
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


# How a request is (mis)signed: one in three is refused on purpose. Chosen from a hash of the
# request, so a generated case always gets the same treatment when Hypothesis replays it.
MODES = (["unsigned", "as_generated", "forged", "stale", "wrong_scope", "revoked", "unknown_key", "hz1"]
         + ["valid"] * 16)


def choose_mode(method: str, url: str, headers, body: bytes) -> str:
    digest = hashlib.sha256()
    digest.update(method.encode() + b" " + url.encode())
    for name in sorted(k.lower() for k in headers):
        if name in ("x-schemathesis-testcaseid", "content-length"):
            continue
        digest.update(f"\n{name}: {headers[name]}".encode("utf-8", "replace"))
    digest.update(b"\n\n" + body)
    return MODES[int.from_bytes(digest.digest()[:4], "big") % len(MODES)]


class Signer(requests.auth.AuthBase):
    """Signs the prepared request (the bytes that will be sent), after gzipping its body when it
    says `Content-Encoding: gzip` (one such body in five is left as is, so the server's 400 for a
    corrupt gzip body is exercised). `mode` None: chosen per request (see MODES)."""

    def __init__(self, mode: str | None = None, key: str | None = None, etag: dict | None = None):
        self.mode = mode
        self.key = key
        self.etag = etag  # the latest ETag seen, to send as If-None-Match now and then
        self.used_mode: str | None = None

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        body = body_of(r)
        encoding = (r.headers.get("Content-Encoding") or "").strip().lower()
        if encoding == "gzip" and body and hashlib.sha256(body).digest()[0] % 5 != 0:
            body = gzip.compress(body, mtime=0)
            r.body = body
            r.prepare_content_length(body)
        path, query = target_of(r)
        mode = self.mode or choose_mode(r.method, r.url, r.headers, body)
        self.used_mode = mode
        if self.etag is not None and path == "/v1/client-config" and self.etag.get("value") and hashlib.sha256(
                repr(sorted(r.headers.items())).encode()).digest()[1] % 3 == 0:
            r.headers["If-None-Match"] = self.etag["value"]
        admin = path.startswith(ADMIN_PATHS)
        key = KEYS[self.key or ("admin" if admin else "ingest")]
        ts = int(time.time())
        if mode == "unsigned":
            r.headers.pop("Authorization", None)
            return r
        if mode == "as_generated":
            return r  # whatever schemathesis generated for the Authorization header (or none)
        if mode == "wrong_scope":
            key = KEYS["ingest" if admin else "admin"]
        elif mode == "revoked":
            key = KEYS["revoked"]
        elif mode == "stale":
            ts -= 3600
        if admin and mode in ("valid", "wrong_scope", "forged", "hz1"):
            ts = ADMIN_TS.take(f"{r.method} {path}?{query} {hashlib.sha256(body).hexdigest()}")
        if mode == "hz1":
            r.headers["Authorization"] = f"HZ1-HMAC-SHA256 key={key.key_id}, ts={ts}, sig={hz1_signature(key.secret, ts, body)}"
            return r
        sig = hz2_signature(key.secret, ts, r.method, path, query, body)
        if mode == "forged":
            sig = ("0" if sig[0] != "0" else "1") + sig[1:]
        key_id = "hzk_unknown0000" if mode == "unknown_key" else key.key_id
        r.headers["Authorization"] = f"HZ2-HMAC-SHA256 key={key_id}, ts={ts}, sig={sig}"
        return r


# --- Statistics (names, statuses and counts only) ------------------------------------------

STATS: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
MODE_STATS: collections.Counter = collections.Counter()
STARTED = time.monotonic()
_HANDZ_CONTRACT_STATS = True  # found by ContractSummary


def record(label: str, response, mode: str | None) -> None:
    STATS[label][response.status_code] += 1
    if mode:
        MODE_STATS[mode] += 1


# --- The schema and the generated tests -------------------------------------------------------

CONFIG = schemathesis.Config.from_dict({
    "base-url": BASE_URL,
    "seed": SEED,
    "request-timeout": 30,
    # Header values stay valid on the wire (no C0 control characters or DEL): the HTTP parser
    # refuses those before any route (test_scenario_unreadable_request), which is no operation's answer.
    "generation": {"mode": "all", "max-examples": MAX_EXAMPLES, "database": "none", "no-shrink": True,
                   "exclude-header-characters": "".join(chr(c) for c in range(0x20) if c != 0x09) + "\x7f"},
    "phases": {
        "examples": {"enabled": True},
        "coverage": {"enabled": True},
        "fuzzing": {"enabled": True},
        "stateful": {"enabled": False},
    },
})

schema = schemathesis.openapi.from_path(SCHEMA_PATH, config=CONFIG)
if SKIP_DOCUMENT:
    schema = schema.exclude(path="/openapi.json")

CONTROL_CHARACTERS = frozenset(chr(c) for c in range(0x20) if c != 0x09) | {"\x7f"}


@schema.hook
def filter_case(context, case):
    """No header value with a control character: the HTTP parser refuses such a request before any
    route (400, empty body; test_scenario_unreadable_request). schemathesis's negative If-None-Match
    values ignore `exclude-header-characters`, hence this filter too."""
    return not any(isinstance(value, str) and not CONTROL_CHARACTERS.isdisjoint(value) for value in (case.headers or {}).values())


SESSION = requests.Session()
ETAG: dict[str, str] = {}
check_signature_vectors()


def reset_maintenance() -> None:
    """Ends a maintenance window a generated request opened (so batches are not all 503)."""
    signer = Signer(mode="valid", key="admin")
    response = SESSION.post(f"{BASE_URL}/v1/admin/maintenance", params={"seconds": "0"}, auth=signer, timeout=30)
    assert response.status_code == 200, f"ending maintenance answered {response.status_code}"


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck),
          print_blob=False)
def test_operation(case):
    signer = Signer(etag=ETAG)
    response = case.call(session=SESSION, auth=signer)
    label = case.operation.label
    if case.method.upper() != case.operation.method.upper():  # the coverage phase's probe of an undocumented method
        label = "(coverage probes) a method no route has"
    record(label, response, signer.used_mode)
    try:
        case.validate_response(response, checks=CHECKS)
    finally:
        if case.operation.path == "/v1/client-config" and response.status_code == 200:
            ETAG["value"] = next((values[0] for name, values in response.headers.items() if name.lower() == "etag"), "")
        if case.operation.path == "/v1/admin/maintenance" and response.status_code == 200:
            if response.json().get("maintenance_seconds", 0) > 0:
                reset_maintenance()


# --- Scenarios random generation does not reach -------------------------------------------------

def operation(path: str, method: str):
    return schema[path][method]


VALID_EVENT = {  # synthetic, as in openapi.yaml's example
    "event_id": "019cfaa4-3e6a-7a98-9c33-86a6215b3e41", "event_name": "onboarding_viewed",
    "event_time_utc": "2026-03-17T07:13:13.834Z", "app_version": "1.4.2", "build_number": "762",
    "platform": "iOS", "os_version": "iPadOS 18.6", "device_model": "iPhone14,5", "locale": "en_GB",
    "timezone": "UTC", "session_id": "e8cba874-9242-442e-a400-ab22687d3af6",
    "install_id": "bf7c142a-2dc0-471a-a36c-91dca3da93b5", "user_state": "trial",
    "analytics_opt_in": True, "network_state": "online", "properties": {},
}


def batch_body(event_id: str | None = None) -> bytes:
    event = dict(VALID_EVENT)
    if event_id:
        event["event_id"] = event_id
    return json.dumps({"catalog_version": "1.3.0", "events": [event]}).encode()


def send(method: str, path: str, *, mode: str = "valid", key: str | None = None, **kwargs) -> requests.Response:
    signer = Signer(mode=mode, key=key)
    response = SESSION.request(method, f"{BASE_URL}{path}", auth=signer, timeout=30, **kwargs)
    return response


def checked(path: str, method: str, response: requests.Response, label: str, *, expect_5xx: bool = False) -> requests.Response:
    """Records the answer and runs the checks on it (without `not_a_server_error` for an answer
    that must be a documented 503)."""
    op = operation(path, method)
    record(f"{op.label} [{label}]", response, None)
    op.Case().validate_response(response, checks=[c for c in CHECKS if not (expect_5xx and c is not_a_server_error)])
    return response


def test_scenario_valid_batch_plain_and_gzip():
    first = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=batch_body("019cfaa4-3e6a-7a98-9c33-000000000001"),
                                              headers={"Content-Type": "application/json"}), "plain")
    assert first.status_code == 200, first.status_code
    assert first.json()["accepted"] + first.json()["duplicates"] == 1
    zipped = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=batch_body("019cfaa4-3e6a-7a98-9c33-000000000002"),
                                               headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}), "gzip")
    assert zipped.status_code == 200, zipped.status_code
    assert zipped.json()["accepted"] + zipped.json()["duplicates"] == 1


def test_scenario_hz1_batch_accepted_admin_refused():
    batch = checked("/v1/batch", "POST", send("POST", "/v1/batch", mode="hz1", data=batch_body(),
                                              headers={"Content-Type": "application/json"}), "HZ1")
    assert batch.status_code == 200, batch.status_code
    admin = checked("/v1/admin/reload", "POST", send("POST", "/v1/admin/reload", mode="hz1"), "HZ1")
    assert admin.status_code == 401 and admin.json()["error"]["code"] == "unauthorized", admin.status_code


def test_scenario_refusals():
    stale = checked("/v1/batch", "POST", send("POST", "/v1/batch", mode="stale", data=batch_body(),
                                              headers={"Content-Type": "application/json"}), "stale ts")
    assert stale.status_code == 401 and stale.json()["error"]["code"] == "clock_skew"
    assert isinstance(stale.json()["error"]["server_time"], int)
    revoked = checked("/v1/batch", "POST", send("POST", "/v1/batch", mode="revoked", data=batch_body(),
                                                headers={"Content-Type": "application/json"}), "revoked key")
    assert revoked.status_code == 403
    scope = checked("/v1/admin/reload", "POST", send("POST", "/v1/admin/reload", mode="wrong_scope"), "ingest key")
    assert scope.status_code == 403
    media = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=batch_body(), headers={"Content-Type": "text/plain"}),
                    "text/plain")
    assert media.status_code == 415
    encoding = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=batch_body(),
                                                 headers={"Content-Type": "application/json", "Content-Encoding": "br"}), "br")
    assert encoding.status_code == 415


def test_scenario_replayed_admin_signature():
    ts = int(time.time())
    key = KEYS["admin"]
    sig = hz2_signature(key.secret, ts, "POST", "/v1/admin/reload", "", b"")
    headers = {"Authorization": f"HZ2-HMAC-SHA256 key={key.key_id}, ts={ts}, sig={sig}"}
    first = checked("/v1/admin/reload", "POST", SESSION.post(f"{BASE_URL}/v1/admin/reload", headers=headers, timeout=30), "first")
    second = checked("/v1/admin/reload", "POST", SESSION.post(f"{BASE_URL}/v1/admin/reload", headers=headers, timeout=30), "replay")
    assert first.status_code == 200, first.status_code
    assert second.status_code == 401 and second.json()["error"]["code"] == "replayed_signature", second.status_code


def test_scenario_maintenance_window():
    opened = checked("/v1/admin/maintenance", "POST", send("POST", "/v1/admin/maintenance", params={"seconds": "30"}), "30 s")
    assert opened.status_code == 200 and opened.json() == {"maintenance_seconds": 30}
    try:
        refused = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=batch_body(),
                                                    headers={"Content-Type": "application/json"}), "maintenance",
                          expect_5xx=True)
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "store_unavailable"
        assert 1 <= int(refused.headers["Retry-After"]) <= 30
    finally:
        closed = checked("/v1/admin/maintenance", "POST", send("POST", "/v1/admin/maintenance", params={"seconds": "0"}), "0 s")
    assert closed.status_code == 200
    out_of_range = checked("/v1/admin/maintenance", "POST",
                           send("POST", "/v1/admin/maintenance", params={"seconds": "86401"}), "86401 s")
    assert out_of_range.status_code == 400


def test_scenario_client_config_etag():
    first = checked("/v1/client-config", "GET", send("GET", "/v1/client-config"), "fresh")
    assert first.status_code == 200
    etag = first.headers["ETag"]
    again = checked("/v1/client-config", "GET", send("GET", "/v1/client-config", headers={"If-None-Match": etag}), "If-None-Match")
    assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == etag


def test_scenario_forget_user():
    user = "33d34a5b-8eb3-4906-90dd-99d996df829f"
    ok = checked("/v1/users/{user_id}", "DELETE", send("DELETE", f"/v1/users/{user.upper()}"), "upper-case id")
    assert ok.status_code == 202 and ok.json()["state"] in ("pending", "completed")
    again = checked("/v1/users/{user_id}", "DELETE", send("DELETE", f"/v1/users/{user}"), "repeated")
    assert again.status_code == 202 and again.json()["request_id"] == ok.json()["request_id"]
    bad = checked("/v1/users/{user_id}", "DELETE", send("DELETE", "/v1/users/not-a-uuid"), "not a UUID")
    assert bad.status_code == 400
    status = checked("/v1/deletions/{request_id}", "GET", send("GET", f"/v1/deletions/{ok.json()['request_id']}"), "known id")
    assert status.status_code == 200 and status.json()["request_id"] == ok.json()["request_id"]
    unknown = checked("/v1/deletions/{request_id}", "GET", send("GET", "/v1/deletions/0b0b0b0b-1111-4222-8333-444455556666"), "unknown id")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"


def test_scenario_declared_body_too_large():
    # 1 MiB + 1 declared: refused from Content-Length before reading, and the connection closed.
    body = b" " * ((1 << 20) + 1)
    response = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=body,
                                                 headers={"Content-Type": "application/json"}), "declared > 1 MiB")
    assert response.status_code == 413 and response.headers.get("Connection", "").lower() == "close"


def test_scenario_too_many_events():
    body = json.dumps({"events": [{}] * 1001}).encode()
    response = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=body, headers={"Content-Type": "application/json"}),
                       "1001 events")
    assert response.status_code == 413


def raw_exchange(request: bytes) -> tuple[int, dict[str, list[str]], bytes]:
    """Sends bytes on a fresh connection and reads the answer until the server closes it."""
    url = urlsplit(BASE_URL)
    with socket.create_connection((url.hostname, url.port or 80), timeout=BODY_TIMEOUT + 30) as sock:
        sock.sendall(request)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, list[str]] = collections.defaultdict(list)
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()].append(value.strip())
    return int(lines[0].split(" ")[1]), dict(headers), body


@pytest.mark.skipif(BODY_TIMEOUT <= 0 or BODY_TIMEOUT > 10, reason="needs the server's --body-timeout (at most 10 s)")
def test_scenario_stalled_body():
    # Declares 64 bytes, sends 10, then nothing: 408 after the body timeout, connection closed.
    netloc = urlsplit(BASE_URL).netloc.encode()
    status, headers, body = raw_exchange(b"POST /v1/batch HTTP/1.1\r\nHost: " + netloc
                                         + b"\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{\"events\":")
    request = requests.Request("POST", f"{BASE_URL}/v1/batch", headers={"Content-Type": "application/json"}).prepare()
    response = schemathesis.Response(status_code=status, headers=headers, content=body, request=request, elapsed=0.0,
                                     verify=True, encoding="utf-8")
    op = operation("/v1/batch", "POST")
    STATS[f"{op.label} [stalled body]"][status] += 1
    op.Case().validate_response(response, checks=CHECKS)
    assert status == 408 and json.loads(body)["error"]["code"] == "request_timeout"
    assert headers.get("connection") == ["close"]


def test_scenario_unreadable_request():
    # A header value with a control character: the HTTP parser's 400 with an empty body, connection
    # closed (openapi.yaml, info.description) — not a route's answer, so no schema check.
    netloc = urlsplit(BASE_URL).netloc.encode()
    status, headers, body = raw_exchange(b"GET /health HTTP/1.1\r\nHost: " + netloc + b"\r\nX-Probe: a\x04b\r\n\r\n")
    STATS["(HTTP parser) control character in a header"][status] += 1
    assert status == 400 and body == b"" and headers.get("connection") == ["close"], status


@pytest.mark.skipif(not 0 < INSTALL_BURST <= 500, reason="needs the server's --install-burst (at most 500)")
def test_scenario_install_rate_limited():
    # One install sends its whole burst, then one event more: 429 with Retry-After.
    install = "0b9f2c1e-5a7d-4c3b-9e8f-1a2b3c4d5e6f"
    def events(first: int, count: int) -> bytes:
        return json.dumps({"events": [dict(VALID_EVENT, install_id=install, event_id=f"019cfaa4-3e6a-7a98-9c33-{n:012x}")
                                      for n in range(first, first + count)]}).encode()
    burst = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=events(0x10000, INSTALL_BURST),
                                              headers={"Content-Type": "application/json"}), "an install's burst")
    assert burst.status_code == 200 and burst.json()["accepted"] == INSTALL_BURST, burst.status_code
    over = checked("/v1/batch", "POST", send("POST", "/v1/batch", data=events(0x20000, 60),
                                             headers={"Content-Type": "application/json"}), "over the install's budget")
    assert over.status_code == 429 and over.json()["error"]["code"] == "rate_limited", over.status_code
    assert 1 <= int(over.headers["Retry-After"]) <= 86400


@pytest.mark.skipif(not CATALOG_COPY, reason="needs --catalog-copy (the catalog directory the server serves)")
def test_scenario_reload_refuses_a_broken_catalog():
    path = os.path.join(CATALOG_COPY, "catalog.yaml")
    with open(path, "rb") as handle:
        original = handle.read()
    try:
        with open(path, "wb") as handle:
            handle.write(b"catalog_version: [\n")  # not YAML
        refused = checked("/v1/admin/reload", "POST", send("POST", "/v1/admin/reload"), "broken catalog")
        assert refused.status_code == 422 and refused.json()["error"]["code"] == "catalog_invalid", refused.status_code
    finally:
        with open(path, "wb") as handle:
            handle.write(original)
    reloaded = checked("/v1/admin/reload", "POST", send("POST", "/v1/admin/reload"), "restored catalog")
    assert reloaded.status_code == 200 and reloaded.json() == {"catalog_version": "2.0.0"}, reloaded.status_code


# --- Defects this check found in the server, fixed, kept as regressions ---------------------------

def test_hz1_refused_on_client_config():
    # HZ1 signs no method or path: only POST /v1/batch accepts it (older app builds).
    response = checked("/v1/client-config", "GET", send("GET", "/v1/client-config", mode="hz1"), "HZ1")
    assert response.status_code == 401, response.status_code


def test_oversized_admin_body_refused():
    # The admin routes and client-config read at most 1 KiB; a larger body used to be read as
    # empty, so a signature over the empty body was accepted. Now: 413, whatever it is signed over.
    response = checked("/v1/admin/reload", "POST",
                       send("POST", "/v1/admin/reload", key="admin", data=b"{" + b" " * 1024 + b"}",
                            headers={"Content-Type": "application/json"}), "1 KiB + 1 body")
    assert response.status_code == 413, response.status_code


@pytest.mark.skipif(BODY_TIMEOUT <= 0 or BODY_TIMEOUT > 10, reason="needs the server's --body-timeout (at most 10 s)")
def test_trickled_body_bounded_on_client_config():
    # Declares 64 bytes and trickles one every half second: HandzServer docs, "Limits", "Slow and
    # stalled connections" promises an answer (408) or a closed connection within --body-timeout.
    url = urlsplit(BASE_URL)
    with socket.create_connection((url.hostname, url.port or 80), timeout=0.5) as sock:
        sock.sendall(b"GET /v1/client-config HTTP/1.1\r\nHost: " + url.netloc.encode() + b"\r\nContent-Length: 64\r\n\r\n")
        started = time.monotonic()
        answered = False
        while time.monotonic() - started < BODY_TIMEOUT + 3 and not answered:
            try:
                sock.sendall(b"x")
                answered = sock.recv(4096) is not None  # an answer, or b"" when closed
            except socket.timeout:
                continue
            except OSError:
                answered = True
    assert answered, f"no answer and the connection still open after {BODY_TIMEOUT + 3:.0f} s"


def test_scenario_unauthenticated_routes():
    health = checked("/health", "GET", SESSION.get(f"{BASE_URL}/health", timeout=30), "plain")
    assert health.status_code == 200 and health.json()["store_writable"] is True
    metrics = checked("/metrics", "GET", SESSION.get(f"{BASE_URL}/metrics", timeout=30), "plain")
    assert metrics.status_code == 200 and b"handz_requests_total" in metrics.content
    if not SKIP_DOCUMENT:
        document = checked("/openapi.json", "GET", SESSION.get(f"{BASE_URL}/openapi.json", timeout=30), "plain")
        assert document.status_code == 200 and document.json()["openapi"] == "3.1.0"
        import yaml  # PyYAML, a schemathesis dependency

        with open(SCHEMA_PATH, encoding="utf-8") as handle:
            assert document.json() == yaml.safe_load(handle), "GET /openapi.json differs from openapi.yaml"
