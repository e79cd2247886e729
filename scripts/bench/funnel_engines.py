#!/usr/bin/env python3
"""Times one funnel query on DuckDB, ClickHouse (chdb) and Spark SQL (local mode), plus a
hand-written ClickHouse windowFunnel query, on the same events (a Parquet file exported from the
SQLite store). Prints one JSON object per measurement. Used by scripts/bench-funnels.sh."""
import argparse
import json
import os
import time


def timed(label, run, repeat):
    best, result = None, None
    for _ in range(repeat):
        started = time.monotonic()
        result = run()
        elapsed = time.monotonic() - started
        best = elapsed if best is None else min(best, elapsed)
    print(json.dumps({"engine": label, "seconds": round(best, 2), "rows": result}), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parquet", required=True)
    parser.add_argument("--sql-dir", required=True, help="holds funnel.<dialect>.sql and ddl.<dialect>.sql")
    parser.add_argument("--work", required=True)
    parser.add_argument("--window-funnel", required=True, help="file with the hand-written ClickHouse query")
    parser.add_argument("--engines", default="duckdb,clickhouse,spark")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    sql = lambda name: open(os.path.join(args.sql_dir, name)).read()
    engines = args.engines.split(",")

    if "duckdb" in engines:
        import duckdb
        db = duckdb.connect()
        started = time.monotonic()
        db.execute(f"CREATE TABLE events AS SELECT * FROM read_parquet('{args.parquet}')")
        print(json.dumps({"engine": "duckdb load", "seconds": round(time.monotonic() - started, 2)}), flush=True)
        timed("duckdb F0", lambda: [list(map(str, r)) for r in db.execute(sql("funnel.duckdb.sql")).fetchall()], args.repeat)
        db.close()

    if "clickhouse" in engines:
        from chdb import session
        ch = session.Session(os.path.join(args.work, "chdb-bench"))
        ch.query("DROP TABLE IF EXISTS events")
        ch.query(sql("ddl.clickhouse.sql").strip().rstrip(";"))
        started = time.monotonic()
        ch.query(f"INSERT INTO events SELECT * FROM file('{args.parquet}', 'Parquet')")
        print(json.dumps({"engine": "clickhouse load", "seconds": round(time.monotonic() - started, 2)}), flush=True)
        run = lambda text: str(ch.query(text, "CSV")).strip().splitlines()
        timed("clickhouse F0 (generated SQL)", lambda: run(sql("funnel.clickhouse.sql")), args.repeat)
        timed("clickhouse F0 (hand-written windowFunnel)", lambda: run(open(args.window_funnel).read()), args.repeat)
        ch.close()

    if "spark" in engines:
        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.master("local[2]").appName("handz-bench")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "8").config("spark.driver.memory", "12g")
                 .config("spark.sql.session.timeZone", "UTC").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        started = time.monotonic()
        spark.read.parquet(args.parquet).createOrReplaceTempView("events")
        spark.sql("CACHE TABLE events")
        print(json.dumps({"engine": "spark load (cache)", "seconds": round(time.monotonic() - started, 2)}), flush=True)
        timed("spark F0", lambda: [list(map(str, r)) for r in spark.sql(sql("funnel.spark.sql")).collect()], args.repeat)
        spark.stop()


if __name__ == "__main__":
    main()
