"""An analysis node's lag while ingest nodes write (issue 36; scripts/bench-follow.sh, not run in
CI). Polls the shared store's event count and the copy's (`handz-analytics stats --db COPY`) every
half second until the loader's pid is gone and the copy holds every event. A copy holding C events
at time t lags by t - t', t' the first sample at which the store held C or more: how long an event
took, at most, from its commit to the copy. Prints the median and maximum of that over the load,
and how long the copy took to hold everything once the load ended. Counts only.

  python scripts/bench/follow_lag.py --postgres DSN --binary BIN --copy COPY.sqlite --loader PID
"""
import argparse
import bisect
import json
import os
import statistics
import subprocess
import time

import psycopg

parser = argparse.ArgumentParser()
parser.add_argument("--postgres", required=True)
parser.add_argument("--binary", required=True)
parser.add_argument("--copy", required=True)
parser.add_argument("--loader", type=int, required=True)
parser.add_argument("--timeout", type=float, default=900)
args = parser.parse_args()


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


store_times, store_counts, lags = [], [], []
ended_at = None
deadline = time.time() + args.timeout
with psycopg.connect(args.postgres, autocommit=True) as connection:
    while time.time() < deadline:
        now = time.time()
        stored = connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        store_times.append(now)
        store_counts.append(stored)
        out = subprocess.run([args.binary, "stats", "--db", args.copy], capture_output=True, text=True)
        copied = json.loads(out.stdout)["stored_events"] if out.returncode == 0 else 0
        seen = time.time()
        index = bisect.bisect_left(store_counts, copied)
        if index < len(store_counts) and copied > 0:
            lags.append(seen - store_times[index])
        if ended_at is None and not alive(args.loader):
            ended_at = seen
        if ended_at is not None and copied >= stored:
            print(f"lag over the load: median {statistics.median(lags):.1f} s, max {max(lags):.1f} s ({len(lags)} samples); "
                  f"the copy held all {stored} events {seen - ended_at:.1f} s after the load ended")
            break
        time.sleep(max(0.0, 0.5 - (time.time() - now)))
    else:
        print("the copy did not catch up within the timeout")
