"""An analysis node's lag while ingest nodes write (issue 36; scripts/bench-follow.sh, not run in
CI). Samples, every quarter second until the loader's pid is gone and the copy holds every event:

- the store's event count: the count when sampling starts plus the ingest nodes'
  `handz_events_total{outcome="accepted"}` from their /metrics (each goes up once the transaction
  holding the events has committed);
- the copy's count: `--base` plus the analysis node's `handz_analytics_follow_events_total`;
- the commit horizon: `pg_current_snapshot()`'s xmin (the oldest transaction still running) and
  xmax (the next transaction id to be given out).

A copy holding C of the store's S events at time t lags by t - t', t' the first sample at which
the store held more than C: the age of the oldest committed event not yet in the copy (0 when C =
S), which bounds how long any event took from its commit to the copy, to within a sample. (The
first version measured t - t' with t' the first sample holding C or more: an upper bound for the
events just copied, but one that kept growing while a copy that held everything waited for a
store that had stopped growing — the loader's last seconds, checking what it stored, showed as a
5 s lag.) The horizon lags by t - t'',
t'' the first sample whose xmax passed the current xmin: how long the oldest running transaction
has held back what any follower may read. When the copy's worst lag matches the horizon's, the
time is PostgreSQL's (a transaction holding the horizon back), not the follower's. Prints the
median and maximum of both over the load, and how long the copy took to hold everything once the
load ended. Counts only.

Why not `SELECT COUNT(*) FROM events` as the store's clock (how this script first sampled): on a
store of a million events each count took up to a second on the loaded cores, and since a sample
reads the store before the copy, its own duration was added to every lag it measured. Every read
here takes milliseconds, and the script prints how long its samples took.

  python scripts/bench/follow_lag.py --postgres DSN --metrics URL --nodes URL,URL --base N --loader PID
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
parser.add_argument("--nodes", required=True, help="the ingest nodes' /metrics URLs, comma-separated")
parser.add_argument("--base", type=int, default=0, help="events the copy held when the node started")
parser.add_argument("--loader", type=int, required=True)
parser.add_argument("--interval", type=float, default=0.25)
parser.add_argument("--timeout", type=float, default=900)
args = parser.parse_args()
nodes = [url for url in args.nodes.split(",") if url]


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def counter(url, name, labels=""):
    """A counter's value on one /metrics page (0 before it is first counted)."""
    with urllib.request.urlopen(url, timeout=5) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(name) and labels in line:
                return int(float(line.split()[-1]))
    return 0


def accepted():
    return sum(counter(url, "handz_events_total", 'outcome="accepted"') for url in nodes)


store_times, store_counts, xmax_seen = [], [], []
lags, lag_times, horizon_lags, sample_seconds = [], [], [], []


def lag_of(copied, stored, seen):
    """The age of the oldest event the store holds and the copy does not yet: how long ago the
    store first held more than `copied` events (0 when the copy holds them all)."""
    if copied >= stored:
        return 0.0
    index = bisect.bisect_left(store_counts, copied + 1)
    return seen - store_times[index] if index < len(store_counts) else None


ended_at = None
deadline = time.time() + args.timeout
with psycopg.connect(args.postgres, autocommit=True) as connection:
    # The store's count when sampling starts, less what the nodes had already counted.
    store_base = connection.execute("SELECT COUNT(*) FROM events").fetchone()[0] - accepted()
    while time.time() < deadline:
        now = time.time()
        stored = store_base + accepted()
        xmin, xmax = (int(v) for v in connection.execute(
            "SELECT pg_snapshot_xmin(s)::text, pg_snapshot_xmax(s)::text FROM pg_current_snapshot() s").fetchone())
        store_times.append(now)
        store_counts.append(stored)
        xmax_seen.append(xmax)
        copied = args.base + counter(args.metrics, "handz_analytics_follow_events_total")
        seen = time.time()
        sample_seconds.append(seen - now)
        lag = lag_of(copied, stored, seen)
        if lag is not None:
            lags.append(lag)
            lag_times.append(seen)
        # The first sample at which the oldest running transaction's id had been given out.
        # (None running, xmin = xmax: the horizon is now.)
        since = bisect.bisect_right(xmax_seen, xmin)
        horizon_lags.append(seen - store_times[since] if since < len(store_times) else 0.0)
        if ended_at is None and not alive(args.loader):
            ended_at = seen
        if ended_at is not None and copied >= stored:
            counted = connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            worst = max(range(len(lags)), key=lags.__getitem__)
            p95 = sorted(lags)[int(len(lags) * 0.95)]
            print(f"lag over the load: median {statistics.median(lags):.2f} s, 95th percentile {p95:.2f} s, max {max(lags):.2f} s "
                  f"(at sample {worst + 1} of {len(lags)}, {lag_times[worst] - store_times[0]:.0f} s in; "
                  f"samples each read in {statistics.median(sample_seconds) * 1000:.0f} ms median, {max(sample_seconds) * 1000:.0f} ms max); "
                  f"the copy held all {stored} events {seen - ended_at:.1f} s after the load ended (the store counts {counted})")
            print(f"the copy's lag, second by second from the start: {' '.join(f'{lag:.1f}' for lag in lags[::4])}")
            print(f"the commit horizon over the load (the oldest running transaction's age): median {statistics.median(horizon_lags):.2f} s, "
                  f"max {max(horizon_lags):.2f} s")
            break
        time.sleep(max(0.0, args.interval - (time.time() - now)))
    else:
        print("the copy did not catch up within the timeout")
