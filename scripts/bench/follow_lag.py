"""An analysis node's lag while ingest nodes write (issue 36; scripts/bench-follow.sh, not run in
CI). Polls the shared store's event count and the copy's every half second until the loader's pid
is gone and the copy holds every event. The copy's count is `--base` plus the node's
`handz_analytics_follow_events_total` from its /metrics (`stats --db` on a store of millions takes
seconds, too coarse a clock). A copy holding C events
at time t lags by t - t', t' the first sample at which the store held C or more: how long an event
took, at most, from its commit to the copy. Prints the median and maximum of that over the load,
and how long the copy took to hold everything once the load ended. Counts only.

Beside it, the same lag for what the follower may read at all: the events below the commit
horizon (`commit_xid < pg_snapshot_xmin(pg_current_snapshot())`, what a round reads up to). When
the copy's worst lag matches the horizon's, the time is PostgreSQL's (a transaction holding the
horizon back), not the follower's.

  python scripts/bench/follow_lag.py --postgres DSN --metrics URL --base N --loader PID
"""
import argparse
import bisect
import os
import statistics
import time
import urllib.request

import psycopg

parser = argparse.ArgumentParser()
parser.add_argument("--postgres", required=True)
parser.add_argument("--metrics", required=True, help="the analysis node's /metrics URL")
parser.add_argument("--base", type=int, default=0, help="events the copy held when the node started")
parser.add_argument("--loader", type=int, required=True)
parser.add_argument("--timeout", type=float, default=900)
args = parser.parse_args()


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def followed(url):
    """The node's handz_analytics_follow_events_total (0 before its first round)."""
    with urllib.request.urlopen(url, timeout=5) as response:
        for line in response.read().decode().splitlines():
            if line.startswith("handz_analytics_follow_events_total"):
                return int(float(line.split()[-1]))
    return 0


store_times, store_counts, lags, horizon_lags = [], [], [], []


def lag_of(count, seen):
    """How long ago the store first held `count` events (None before any sample did)."""
    index = bisect.bisect_left(store_counts, count)
    return seen - store_times[index] if index < len(store_counts) and count > 0 else None


ended_at = None
deadline = time.time() + args.timeout
with psycopg.connect(args.postgres, autocommit=True) as connection:
    while time.time() < deadline:
        now = time.time()
        stored = connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        store_times.append(now)
        store_counts.append(stored)
        readable = connection.execute(
            "SELECT COUNT(*) FROM events WHERE commit_xid < pg_snapshot_xmin(pg_current_snapshot())").fetchone()[0]
        copied = args.base + followed(args.metrics)
        seen = time.time()
        for count, into in ((copied, lags), (readable, horizon_lags)):
            lag = lag_of(count, seen)
            if lag is not None:
                into.append(lag)
        if ended_at is None and not alive(args.loader):
            ended_at = seen
        if ended_at is not None and copied >= stored:
            print(f"lag over the load: median {statistics.median(lags):.1f} s, max {max(lags):.1f} s ({len(lags)} samples); "
                  f"the copy held all {stored} events {seen - ended_at:.1f} s after the load ended")
            print(f"the commit horizon over the load (what a round may read): median {statistics.median(horizon_lags):.1f} s, "
                  f"max {max(horizon_lags):.1f} s behind the store")
            break
        time.sleep(max(0.0, 0.5 - (time.time() - now)))
    else:
        print("the copy did not catch up within the timeout")
