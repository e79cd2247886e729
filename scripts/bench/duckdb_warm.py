"""Times one SQL query on a DuckDB database, warm: the peer of the column engine's `funnel`
figures in BENCHMARKS.md (issue 33). Two threads, one run to warm, then N timed runs; prints the
minimum, median and maximum. Not run in CI.

  python scripts/bench/duckdb_warm.py EVENTS.duckdb QUERY.sql [N]

EVENTS.duckdb is the table `scripts/bench-columns.sh` builds from a store's events; QUERY.sql is
the project's own SQL, e.g. `handz-analytics sql funnel F0 --dialect duckdb --from … --to …`.
"""
import statistics
import sys
import time

import duckdb

database, query_file = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
db = duckdb.connect(database, read_only=True)
db.execute("SET threads = 2")
sql = open(query_file).read()
db.execute(sql).fetchall()
times = []
for _ in range(runs):
    start = time.monotonic()
    db.execute(sql).fetchall()
    times.append(time.monotonic() - start)
print(f"duckdb: min {min(times):.3f} median {statistics.median(times):.3f} max {max(times):.3f} s (n={runs})")
