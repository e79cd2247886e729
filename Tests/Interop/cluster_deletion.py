#!/usr/bin/env python3
"""A deletion requested on one node and completed by another (issue 14 proof, scripts/check-cluster.sh).

    cluster_deletion.py --request-node URL --status-node URL --admin-key-file FILE --postgres DSN --lake DIR

Picks the user with the most stored events, sends `DELETE /v1/users/{id}` to the first node and
polls `GET /v1/deletions/{request_id}` on the second until the request completes (bounded). The
first node runs without a lake, so the lake step can only be the second node's. Then checks:
no stored event carries the id; the user's past is still counted (installs and sessions received
up to the request, as before) and shares no install or session with later events; no lake file
holds the id. Prints ids and counts only — the user id is synthetic but stays out of the log.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from signing import hz2_authorization  # noqa: E402


def call(base: str, key: dict, method: str, path: str, ts: int) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, method=method, data=b"" if method != "GET" else None)
    request.add_header("Authorization", hz2_authorization(key["id"], bytes.fromhex(key["secret"]), ts, method, path))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def past_counts(connection, cutoff_ms: int) -> tuple:
    return connection.execute(
        "SELECT COUNT(*), COUNT(DISTINCT install_id), COUNT(DISTINCT session_id) FROM events WHERE received_time_ms <= %s",
        (cutoff_ms,)).fetchone()


def main() -> int:
    import psycopg
    parser = argparse.ArgumentParser()
    parser.add_argument("--request-node", required=True)
    parser.add_argument("--status-node", required=True)
    parser.add_argument("--admin-key-file", required=True)
    parser.add_argument("--postgres", required=True)
    parser.add_argument("--lake", required=True)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--copy", help="an analysis node's copy (the directory of its --db): the deletion must reach its files too (issue 36 §2)")
    args = parser.parse_args()
    key = json.load(open(args.admin_key_file))["keys"][0]
    ts = int(time.time()) - 200  # distinct seconds per admin request, inside the 300 s window

    with psycopg.connect(args.postgres, autocommit=True) as connection:
        user, = connection.execute(
            "SELECT user_id FROM events WHERE user_id IS NOT NULL GROUP BY user_id ORDER BY COUNT(*) DESC, user_id LIMIT 1").fetchone()
        before_request_ms = int(time.time() * 1000)
        before = past_counts(connection, before_request_ms)
        status, body = call(args.request_node, key, "DELETE", f"/v1/users/{user}", ts)
        assert status == 202, f"DELETE answered {status}"
        request_id = body["request_id"]
        print(f"deletion {request_id} requested on {args.request_node}")
        deadline = time.time() + args.timeout
        state = body
        while state.get("state") != "completed" and time.time() < deadline:
            time.sleep(1)
            ts += 1
            status, state = call(args.status_node, key, "GET", f"/v1/deletions/{request_id}", ts)
            assert status == 200, f"GET /v1/deletions answered {status}"
        assert state.get("state") == "completed", f"not completed within {args.timeout:.0f} s: {state}"
        assert state["steps"] == {"store": "done", "old_versions": "done", "lake": "done"}, state["steps"]
        print(f"completed: {state['events_deidentified']} events, {state['installs_deidentified']} installs, "
              f"{state['sessions_deidentified']} sessions de-identified, {state['partitions_rewritten']} lake partitions rewritten "
              f"(the lake step by {args.status_node}: the requesting node has no lake)")
        remaining, = connection.execute("SELECT COUNT(*) FROM events WHERE lower(user_id) = %s", (user,)).fetchone()
        assert remaining == 0, f"{remaining} events still carry the id"
        after = past_counts(connection, before_request_ms)
        assert after == before, f"the past counts changed: {before} -> {after}"
    for path in glob.glob(os.path.join(args.lake, "dt=*", "hour=*", "*.ndjson.gz")):
        assert user.encode() not in gzip.decompress(open(path, "rb").read()), f"{path} holds the id"
    print(f"deletion check: no event and no lake file holds the id; the past counts the same {before}")
    if args.copy:
        # The analysis node carries the request out on its copy within its next rounds.
        patterns = [user.encode(), bytes.fromhex(user.replace("-", ""))]
        deadline = time.time() + 60
        holding = ["?"]
        while holding and time.time() < deadline:
            holding = []
            for folder, _, files in os.walk(args.copy):
                for name in files:
                    try:
                        data = open(os.path.join(folder, name), "rb").read()
                    except OSError:
                        continue  # a file the node replaced meanwhile
                    if any(pattern in data for pattern in patterns):
                        holding.append(name)
            if holding:
                time.sleep(1)
        assert not holding, f"the analysis node's files still hold the id: {sorted(holding)}"
        print("deletion check: no file of the analysis node's copy holds the id")
    return 0


if __name__ == "__main__":
    sys.exit(main())
