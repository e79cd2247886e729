#!/usr/bin/env python3
"""Sends an NDJSON file of events to several ingest nodes and proves exactly-once storage.

The load balancer's job, done by hand: batches are signed (HZ1-HMAC-SHA256 over the gzip body)
and spread round-robin over the nodes by several sender threads. A share of the batches is
deliberately sent twice, the second time to another node (a client retrying after a lost
answer). Any failure (connection refused while a node is down, 429, 503, a timeout) is retried on
the next node with a bounded backoff. Halfway through, `--midway` runs a shell command (the test
script uses it to `kill -9` one node and start it again).

Afterwards, in PostgreSQL: every event the nodes acknowledged is stored, exactly once; no event
is stored that was not in the file; and the stored count equals the file's distinct event_ids
(every batch was eventually acknowledged). Exit 1 on any difference.

With `--overlap ROUNDS`, instead: each round takes one batch of events under fresh event_ids and
sends it to the first node in order and, at the same moment, to the second node in reverse order
(issue 21 §13). Both must answer 200 on the first attempt — no 503 from a deadlock between the
two nodes' transactions — and between them store every event exactly once.

Never prints event values: counts, statuses and node numbers only.
"""
import argparse
import gzip
import hashlib
import hmac
import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid


def sign(secret_hex, body):
    ts = str(int(time.time()))
    sig = hmac.new(bytes.fromhex(secret_hex), ts.encode() + b"." + body, hashlib.sha256).hexdigest()
    return ts, sig


class Sender:
    def __init__(self, nodes, key_id, secret, timeout):
        self.nodes = nodes
        self.key_id = key_id
        self.secret = secret
        self.timeout = timeout
        self.lock = threading.Lock()
        self.acknowledged = set()
        self.statuses = {}
        self.attempts = 0
        self.retries = 0
        self.duplicate_answers = 0

    def post(self, node_index, body):
        """One attempt: (status, parsed JSON or None). Connection errors are status 0."""
        url = urllib.parse.urlparse(self.nodes[node_index])
        ts, sig = sign(self.secret, body)
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=self.timeout)
        try:
            # HZ1 on purpose: app builds from before HZ2 sign this way, and the endpoint must go on
            # accepting them on /v1/batch (HandzServer docs, "Signed requests").
            connection.request("POST", "/v1/batch", body=body, headers={
                "Content-Type": "application/json", "Content-Encoding": "gzip",
                "Authorization": f"HZ1-HMAC-SHA256 key={self.key_id}, ts={ts}, sig={sig}"})
            response = connection.getresponse()
            payload = response.read()
            return response.status, (json.loads(payload) if response.status == 200 else None)
        except (OSError, http.client.HTTPException):
            return 0, None
        finally:
            connection.close()

    def deliver(self, batch_index, events, first_node, max_attempts=200):
        """Sends until a node answers 200; returns the node that did. Bounded in attempts."""
        body = gzip.compress(json.dumps({"events": events}, separators=(",", ":")).encode(), 1)
        node = first_node
        for attempt in range(max_attempts):
            status, answer = self.post(node, body)
            with self.lock:
                self.attempts += 1
                self.statuses[status] = self.statuses.get(status, 0) + 1
            if status == 200:
                rejected = {entry["index"] for entry in answer["rejected"]}
                if rejected:
                    raise SystemExit(f"batch {batch_index}: {len(rejected)} events rejected; the dataset must be valid")
                with self.lock:
                    self.acknowledged.update(event["event_id"] for event in events)
                    self.duplicate_answers += answer["duplicates"]
                return node
            with self.lock:
                self.retries += 1
            node = (node + 1) % len(self.nodes)
            time.sleep(min(0.05 * (attempt + 1), 1.0))
        raise SystemExit(f"batch {batch_index}: no node acknowledged it after {max_attempts} attempts")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", required=True, help="NDJSON, one valid event per line")
    parser.add_argument("--nodes", required=True, help="comma-separated base URLs")
    parser.add_argument("--key-file", required=True, help="a one-key file from keys create --client-key-out")
    parser.add_argument("--postgres", required=True, help="libpq connection string of the shared store")
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--retry-every", type=int, default=5, help="send every Nth batch a second time, to another node")
    parser.add_argument("--midway", help="shell command run once half of the batches are acknowledged")
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--overlap", type=int, metavar="ROUNDS",
                        help="send each of ROUNDS fresh batches to two nodes at once in opposite orders; expect 200 from both")
    parser.add_argument("--probe", type=int, metavar="STATUS",
                        help="send the first batch once to every node, expect this status from each, and stop (no store check)")
    args = parser.parse_args()

    key = json.load(open(args.key_file))["keys"][0]
    nodes = [node for node in args.nodes.split(",") if node]
    lines = [json.loads(line) for line in open(args.events) if line.strip()]
    distinct = {event["event_id"] for event in lines}
    batches = [lines[i:i + args.batch] for i in range(0, len(lines), args.batch)]
    sender = Sender(nodes, key["id"], key["secret"], args.timeout)

    if args.probe:
        body = gzip.compress(json.dumps({"events": batches[0]}, separators=(",", ":")).encode(), 1)
        statuses = [sender.post(index, body)[0] for index in range(len(nodes))]
        print(f"probe with key {key['id'][:8]}…: statuses {statuses}, expected {args.probe} from every node")
        return 0 if all(status == args.probe for status in statuses) else 1

    if args.overlap:
        return overlap(sender, batches, args.overlap, args.postgres)

    next_batch = [0]
    done = [0]
    midway_ran = threading.Event()
    errors = []
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                index = next_batch[0]
                next_batch[0] += 1
            if index >= len(batches):
                return
            try:
                node = sender.deliver(index, batches[index], index % len(nodes))
                if args.retry_every and index % args.retry_every == 0:
                    sender.deliver(index, batches[index], (node + 1) % len(nodes))
            except SystemExit as error:
                errors.append(str(error))
                return
            with lock:
                done[0] += 1
                run_midway = args.midway and done[0] >= len(batches) // 2 and not midway_ran.is_set()
                if run_midway:
                    midway_ran.set()
            if run_midway:
                print(f"midway: {done[0]}/{len(batches)} batches acknowledged; running the midway command", flush=True)
                subprocess.run(args.midway, shell=True, check=True, timeout=120)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=900)
    elapsed = time.monotonic() - started
    if errors or any(thread.is_alive() for thread in threads):
        print("FAIL: " + "; ".join(errors[:5]) if errors else "FAIL: senders did not finish in 900 s")
        return 1
    print(f"sent {len(lines)} lines ({len(distinct)} distinct event_ids) in {len(batches)} batches to {len(nodes)} nodes "
          f"in {elapsed:.1f} s: {sender.attempts} requests, {sender.retries} retried after a failure, statuses {dict(sorted(sender.statuses.items()))}, "
          f"{sender.duplicate_answers} events answered as duplicates")

    import psycopg
    with psycopg.connect(args.postgres) as connection:
        stored = [row[0] for row in connection.execute("SELECT event_id FROM events")]
    stored_set = set(stored)
    failures = []
    if len(stored) != len(stored_set):
        failures.append(f"{len(stored) - len(stored_set)} event_ids stored more than once")
    missing = sender.acknowledged - stored_set
    if missing:
        failures.append(f"{len(missing)} acknowledged events are not stored")
    extra = stored_set - distinct
    if extra:
        failures.append(f"{len(extra)} stored events were never sent")
    if stored_set != distinct:
        failures.append(f"stored {len(stored_set)} distinct events, the file has {len(distinct)}")
    if args.midway and not midway_ran.is_set():
        failures.append("the midway command never ran")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print(f"exactly once: {len(stored)} stored, {len(sender.acknowledged)} acknowledged, no duplicates, nothing lost")
    return 0


def overlap(sender, batches, rounds, dsn):
    """Each round: one batch under fresh event_ids (synthetic uuid4s), to node 0 in order and to
    node 1 reversed, at the same moment. Exit 1 unless every answer is a 200 and the store holds
    each fresh id exactly once."""
    import psycopg
    failures = []
    fresh_ids = set()
    for round_index in range(rounds):
        events = [dict(event, event_id=str(uuid.uuid4())) for event in batches[round_index % len(batches)]]
        fresh_ids.update(event["event_id"] for event in events)
        bodies = [gzip.compress(json.dumps({"events": order}, separators=(",", ":")).encode(), 1)
                  for order in (events, list(reversed(events)))]
        answers = [None, None]
        start = threading.Barrier(2)

        def send(node):
            start.wait(timeout=30)
            answers[node] = sender.post(node, bodies[node])

        threads = [threading.Thread(target=send, args=(node,)) for node in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        statuses = [answer[0] if answer else None for answer in answers]
        if statuses != [200, 200]:
            failures.append(f"round {round_index}: statuses {statuses}")
            continue
        accepted = sum(answer[1]["accepted"] for answer in answers)
        if accepted != len(events):
            failures.append(f"round {round_index}: {accepted} accepted of {len(events)}")
    with psycopg.connect(dsn) as connection:
        stored = connection.execute("SELECT COUNT(*), COUNT(DISTINCT event_id) FROM events WHERE event_id = ANY(%s)",
                                    (list(fresh_ids),)).fetchone()
    if stored != (len(fresh_ids), len(fresh_ids)):
        failures.append(f"stored {stored[0]} rows ({stored[1]} distinct) of {len(fresh_ids)} fresh events")
    if failures:
        print("FAIL: " + "; ".join(failures[:5]))
        return 1
    print(f"overlap: {rounds} batches sent to two nodes at once in opposite orders: every answer 200, "
          f"{len(fresh_ids)} events stored exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
