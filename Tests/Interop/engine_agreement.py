#!/usr/bin/env python3
"""Every funnel, every KPI and the crash-free sessions panel give identical numbers on every engine.

Runs the SQLite SQL on one SQLite store (filled by `handz-analytics import`), loads the store's
events and install_first_seen rows (each install's first-seen time, which the cohort KPIs read)
into PostgreSQL, DuckDB, ClickHouse (chdb) and Spark SQL (local mode), each with the tables
from `handz-analytics sql ddl --dialect D`, runs the SQL from `handz-analytics sql funnel|kpi ...
--dialect D` on each, and compares the integers with `handz-analytics funnel|kpi ... --format json`
on the SQLite store. The launch_health crash-free sessions panel (`sql panel`, the session_share
query: per-day and rolling rows with left_out) is compared with its SQLite SQL's rows on the store.
BigQuery SQL is parsed with sqlglot. Exits 1 on any difference.

Never prints event values: only query names, counts and medians.
"""
import argparse
import datetime
import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from decimal import Decimal

DIALECTS = ["sqlite", "postgres", "duckdb", "clickhouse", "spark"]
# Engines that read data already in place instead of loading the SQLite rows: the events table a
# cluster of ingest nodes wrote to PostgreSQL (--postgres-store), and the lake `export lake` wrote
# (--lake), read by each engine's own file reader through `sql ... --lake DIR`.
IN_PLACE = ["postgres-store", "spark-lake", "clickhouse-lake", "duckdb-lake"]


def cli(binary, *args):
    result = subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"handz-analytics {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


class SQLTexts:
    """The SQL of `handz-analytics sql ARGS`, fetched for many requests in one `sql batch` run: a
    spawn of the debug CLI costs ~0.1 s of argument checks alone, and the check asks ~600 times."""

    def __init__(self, binary):
        self.binary = binary
        self.texts = {}

    def fetch(self, requests):
        wanted = list(dict.fromkeys(tuple(request) for request in requests if tuple(request) not in self.texts))
        if not wanted:
            return
        result = subprocess.run([self.binary, "sql", "batch"], input="".join(json.dumps(list(request)) + "\n" for request in wanted),
                                capture_output=True, text=True, timeout=600)
        answers = result.stdout.splitlines()
        if result.returncode != 0 or len(answers) != len(wanted):
            raise RuntimeError(f"handz-analytics sql batch failed ({result.returncode}, {len(answers)} of {len(wanted)} answers): {result.stderr.strip()}")
        for request, line in zip(wanted, answers):
            answer = json.loads(line)
            if "error" in answer:
                raise RuntimeError(f"handz-analytics sql {' '.join(request)} failed: {answer['error']}")
            self.texts[request] = answer["sql"]

    def __call__(self, *request):
        self.fetch([request])
        return self.texts[tuple(request)]


def read_store(path):
    """The stored events with event_id as canonical lowercase UUID text."""
    db = sqlite3.connect(path)
    columns = [row[1] for row in db.execute("PRAGMA table_info(events)")]
    rows = []
    for row in db.execute(f"SELECT {', '.join(columns)} FROM events"):
        values = list(row)
        values[0] = str(uuid.UUID(bytes=bytes(values[0])))
        rows.append(values)
    return columns, rows


def read_first_seen(path):
    """The store's install_first_seen rows: (install_id, first_app_open_ms, last_received_ms), and how
    many installs were first seen before their first stored app_open (in no cohort)."""
    db = sqlite3.connect(path)
    older = db.execute("""SELECT COUNT(*) FROM install_first_seen f WHERE f.first_app_open_ms <
        COALESCE((SELECT MIN(event_time_ms) FROM events e WHERE e.install_id = f.install_id AND e.event_name = 'app_open'), f.first_app_open_ms)""").fetchone()[0]
    return db.execute("SELECT install_id, first_app_open_ms, last_received_ms FROM install_first_seen").fetchall(), older


def load_first_seen(engine, first_seen):
    """Loads the install_first_seen rows into an engine whose tables `sql ddl` created (one
    multi-row INSERT, the same text on every engine)."""
    if not first_seen:
        return
    quote = lambda text: "'" + text.replace("'", "''") + "'"
    sql = "INSERT INTO install_first_seen VALUES " + ", ".join(f"({quote(i)}, {int(f)}, {int(l)})" for i, f, l in first_seen)
    if isinstance(engine, Postgres):
        with engine.connection.cursor() as cursor:
            cursor.execute(sql)
    elif isinstance(engine, DuckDB):
        engine.connection.execute(sql)
    elif isinstance(engine, ClickHouse):
        engine.session.query(sql)
    else:
        engine.spark.sql(sql)


def statements(ddl):
    return [part.strip() for part in ddl.split(";") if part.strip()]


# ---------------------------------------------------------------------------------------- engines
class Postgres:
    name = "postgres"

    def __init__(self, dsn, ddl, columns, rows):
        import psycopg
        self.connection = psycopg.connect(dsn, autocommit=True)
        with self.connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS events")
            cursor.execute("DROP TABLE IF EXISTS install_first_seen")
            for statement in statements(ddl):
                cursor.execute(statement)
            with cursor.copy(f"COPY events ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            cursor.execute("ANALYZE events")

    def query(self, sql):
        with self.connection.cursor() as cursor:
            cursor.execute(sql)
            return [list(row) for row in cursor.fetchall()]

    def close(self):
        self.connection.close()


class SQLiteStore:
    """The store itself, read-only, running the SQL `sql ... --dialect sqlite` prints: the
    expected answers come from `handz-analytics funnel`, whose default walks the chains in Swift
    instead of running this SQL, so this engine holds the two together."""
    name = "sqlite"

    def __init__(self, path):
        self.connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def query(self, sql):
        return self.connection.execute(sql).fetchall()

    def close(self):
        self.connection.close()


class PostgresStore(Postgres):
    """The shared store the ingest nodes wrote; nothing is loaded."""
    name = "postgres-store"

    def __init__(self, dsn):
        import psycopg
        self.connection = psycopg.connect(dsn, autocommit=True)


class LakeReader:
    """No table: the SQL itself reads the lake's files (`sql funnel|kpi --lake DIR`)."""

    def __init__(self, name, work):
        self.name = name
        if name == "duckdb-lake":
            import duckdb
            connection = duckdb.connect()
            self.run = lambda sql: [list(row) for row in connection.execute(sql).fetchall()]
            self.stop = connection.close
        elif name == "clickhouse-lake":
            self.engine = ClickHouse.__new__(ClickHouse)
            from chdb import session
            self.engine.session = session.Session(os.path.join(work, "chdb-lake"))
            self.run, self.stop = self.engine.query, self.engine.close
        else:
            self.engine = Spark.__new__(Spark)
            self.engine.spark = Spark.session(work)
            self.run, self.stop = self.engine.query, self.engine.close

    def query(self, sql):
        return self.run(sql)

    def close(self):
        self.stop()


class DuckDB:
    name = "duckdb"

    def __init__(self, ndjson, ddl, columns):
        import duckdb
        self.connection = duckdb.connect()
        for statement in statements(ddl):
            self.connection.execute(statement)
        self.connection.execute(
            f"INSERT INTO events SELECT {', '.join(columns)} FROM read_ndjson(?, columns = {{{self.column_types(columns)}}})",
            [ndjson])

    @staticmethod
    def column_types(columns):
        types = {"event_time_ms": "BIGINT", "received_time_ms": "BIGINT"}
        return ", ".join(f"'{c}': '{types.get(c, 'VARCHAR')}'" for c in columns)

    def query(self, sql):
        return [list(row) for row in self.connection.execute(sql).fetchall()]

    def close(self):
        self.connection.close()


class ClickHouse:
    name = "clickhouse"

    def __init__(self, ndjson, ddl, columns, path):
        from chdb import session
        self.session = session.Session(path)
        self.session.query("DROP TABLE IF EXISTS events")
        self.session.query("DROP TABLE IF EXISTS install_first_seen")
        for statement in statements(ddl):
            self.session.query(statement)
        self.session.query(f"INSERT INTO events SELECT {', '.join(columns)} FROM file('{ndjson}', 'JSONEachRow')")

    def query(self, sql):
        result = self.session.query(sql, "JSONCompact")
        data = json.loads(str(result) or '{"data": []}')
        return [[int(v) if isinstance(v, str) and v.lstrip("-").isdigit() else v for v in row] for row in data["data"]]

    def close(self):
        self.session.close()


class Spark:
    name = "spark"

    @staticmethod
    def session(work):
        from pyspark.sql import SparkSession
        # Tuned for many small queries, not for large data: the generated funnels are chains of
        # windows, each a stage, and on tens of thousands of rows the planning around a stage
        # costs more than its work. Adaptive execution re-plans at every stage boundary and
        # whole-stage code generation compiles each stage's Java; both off (and one shuffle
        # partition) took F2 from 12.7 s to about 4 s and the engine's 98 queries from 174 s to
        # about 70 s (2026-12-06). Neither changes a result: the numbers must still equal SQLite's.
        # The driver's JVM runs on the client compiler only, with the serial collector: on two
        # cores the optimising compiler's threads took half of Spark's CPU in CI and never paid
        # back within a run of short queries. The 98 queries went from 300.8 s to 204.5 s in one
        # slow hour, same results (2026-12-07, `ENGINES=spark scripts/check-engines.sh`).
        spark = (SparkSession.builder.master("local[2]").appName("handz-engine-agreement")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "1")
                 .config("spark.sql.adaptive.enabled", "false")
                 .config("spark.sql.codegen.wholeStage", "false")
                 .config("spark.sql.session.timeZone", "UTC")
                 .config("spark.sql.catalogImplementation", "in-memory")
                 .config("spark.sql.warehouse.dir", os.path.join(work, "spark-warehouse"))
                 .config("spark.driver.memory", "4g")
                 .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        return spark

    def __init__(self, ndjson, ddl, columns, work):
        self.spark = self.session(work)
        self.spark.sql("DROP TABLE IF EXISTS events")
        self.spark.sql("DROP TABLE IF EXISTS install_first_seen")
        for statement in statements(ddl):
            self.spark.sql(statement)
        schema = ", ".join(f"{c} {'BIGINT' if c.endswith('_ms') else 'STRING'}" for c in columns)
        self.spark.read.schema(schema).json(ndjson).createOrReplaceTempView("events_source")
        self.spark.sql(f"INSERT INTO events SELECT {', '.join(columns)} FROM events_source")
        self.spark.sql("CACHE TABLE events")

    def query(self, sql):
        return [list(row) for row in self.spark.sql(sql).collect()]

    def close(self):
        self.spark.stop()


# ---------------------------------------------------------------------------------- normalising
def funnel_rows(rows):
    """(breakdown, step) -> (actors, median_ms, links), from SQL rows; step n + 1 is the success."""
    # str(): an engine's client may read a day number's text back as a number (chdb does).
    return {(None if r[0] is None else str(r[0]), int(r[1])): (int(r[2]), None if r[3] is None else int(r[3]), int(r[4] or 0))
            for r in rows if int(r[2]) > 0 or int(r[4] or 0) > 0}


def funnel_expected(report):
    out = {}

    def add(value, steps):
        for step in steps:
            if step["actors"] == 0 and not step.get("links"):
                continue
            median = step["median_seconds_from_previous"]
            out[(value, step["index"])] = (step["actors"], None if median is None else int(Decimal(str(median)) * 1000),
                                           step.get("links") or 0)

    # The success row is step n + 1 in the SQL's rows.
    if "by_entry_day" in report:
        # Conversion over time: the SQL's breakdown column is the UTC day number of entry.
        for day in report["by_entry_day"]:
            number = str((datetime.date.fromisoformat(day["day"]) - datetime.date(1970, 1, 1)).days)
            add(number, day["steps"] + ([day["success"]] if "success" in day else []))
    elif "breakdown" in report:
        for bucket in report["breakdown"]:
            add(bucket["value"], bucket["steps"] + ([bucket["success"]] if "success" in bucket else []))
    else:
        add(None, report["steps"] + ([report["success"]] if "success" in report else []))
    return out


def kpi_rows(measure, rows):
    if measure == "cohort_median_time":
        median, actors = rows[0] if rows else (None, 0)
        return ("median", None if median is None else int(median), int(actors or 0))
    if measure == "latest_value_distribution":
        return ("distribution", sorted((None if r[0] is None else int(r[0]), int(r[1])) for r in rows))
    numerator, denominator = rows[0][0], rows[0][1]
    left_out = int(rows[0][2] or 0) if len(rows[0]) > 2 else None
    return ("ratio", int(numerator or 0), int(denominator or 0), left_out)


def panel_rows(rows):
    """A named event query's integer rows, in one order (the SQL leaves ordering to the reader)."""
    return sorted(tuple(None if v is None else int(v) for v in row) for row in rows)


# With --lake-cases reading, besides every funnel and KPI over the full range: the cases whose
# SQL reads more of each lake row (the user id, the catalog version).
LAKE_READING_CASES = {"funnel F0 actor user", "funnel F0 breakdown catalog_version"}

# Spark over the lake, with --lake-cases reading: only what proves its reader — F0 three ways
# (every column of the lake row it reads), a KPI that reads `properties` and one whose cohort
# comes from the lake's first app_open. Spark re-reads the gzipped files for every reference to
# `events` and ran the 26 reading cases in 184 s of a CI lane (2026-12-07); the SQL after the
# lake's CTE is the table query's own text (EventSourceTests), and check-engines.sh runs all of
# it on Spark over a table, while DuckDB and ClickHouse here run every reading case on the lake.
SPARK_LAKE_CASES = {"funnel F0", *LAKE_READING_CASES, "kpi branches_per_flow", "kpi retention_d7"}

# Dashboard panels whose named event query is compared across engines: (dashboard, panel).
PANELS = [("launch_health", "crash_free_sessions")]


def trend_rows(rows):
    """A trend's rows (series, period, value, other, n) as a set: the SQL leaves ordering to the reader."""
    return sorted((int(r[0]), int(r[1]), r[2], int(r[3]), int(r[4])) for r in rows)


def trend_expected(report):
    """The rows the SQL gives for `trend --format json`: a period's count where there were any,
    and each line's total over the range (a line without events has no rows)."""
    out = []
    for line in report["lines"]:
        value, other = line.get("value"), int(line.get("other", False))
        out += [(line["series"], period, value, other, count) for period, count in enumerate(line["counts"]) if count > 0]
        if line["total"] > 0:
            out.append((line["series"], -1, value, other, line["total"]))
    return sorted(out)


def retention_expected(report):
    """The rows the SQL gives for `retention --format json`: per cohort, its actors by their last
    ended period (eligible for period n and not n + 1; -1: none), and the returned per period."""
    out = []
    for c, cohort in enumerate(report["cohorts"]):
        eligible = [cohort["actors"]] + cohort["eligible"] + [0]
        out += [(0, c, last, eligible[last + 1] - eligible[last + 2]) for last in range(-1, len(cohort["eligible"])) if eligible[last + 1] > eligible[last + 2]]
        out += [(1, c, n, count) for n, count in enumerate(cohort["returned"]) if count > 0]
    return sorted(out)


def path_order(row):
    """A sort key for rows holding None (a path that ended) beside text."""
    return tuple((0, "") if value is None else (1, str(value)) for value in row)


def path_rows(rows):
    """Paths (e1, …, eN, sessions): every step text or None, then the sessions."""
    return sorted((tuple(row[:-1]) + (int(row[-1]),) for row in rows), key=path_order)


def path_expected(report):
    return sorted((tuple(path["steps"]) + (path["sessions"],) for path in report["paths"]), key=path_order)


PATHS = [("screen_viewed", "next", "3"), ("flow_save_attempt|flow_draft_created", "previous", "2"), ("app_open[start_type=cold]", "next", "5")]


RETENTION = [("day", "app_open", "install"), ("week", "any", "install"), ("day", "flow_saved_success|practice_session_started", "user")]


# Trends (issue 35 §1): every measure and interval, several series with a union and a filter, and
# breakdowns by an event property and a release dimension.
TRENDS = [
    ("app_open", "events", "day", None),
    ("app_open,screen_viewed", "installs", "week", None),
    ("app_open[launch_source=push|deep_link],flow_saved_success|flow_draft_created", "users", "day", None),
    ("app_open", "sessions", "month", "launch_source"),
    ("app_open,screen_viewed", "installs", "day", "app_version"),
]


# Funnel modes (issue 35 §3): strict and any order, exclusion steps, conversion over time.
FUNNEL_MODES = [
    ("F0 strict", ["F0", "--order", "strict"]),
    ("ad hoc strict", ["--steps", "app_open,onboarding_viewed,flow_builder_opened|library_viewed", "--order", "strict"]),
    ("ad hoc any order", ["--steps", "onboarding_viewed,flow_builder_opened|library_viewed,flow_draft_created", "--order", "any"]),
    ("F0 excluding library_viewed between steps 2 and 4", ["F0", "--exclude", "library_viewed@2-4"]),
    ("F1 excluding app_background and a blocked gate", ["F1", "--exclude", "app_background", "--exclude", "gate_result[result=blocked]@3-4"]),
    ("F0 by entry day", ["F0", "--by-day"]),
    ("ad hoc any order by entry day", ["--steps", "onboarding_viewed,flow_builder_opened|library_viewed,flow_draft_created", "--order", "any", "--by-day"]),
]


def kpi_expected(report):
    if report["measure"] == "cohort_median_time":
        return ("median", report["median_ms"], report["denominator"])
    if report["measure"] == "latest_value_distribution":
        return ("distribution", sorted((b["value"], b["count"]) for b in report["distribution"]))
    return ("ratio", report["numerator"], report["denominator"], report.get("left_out"))


# ---------------------------------------------------------------------------------------- cases
def cases(catalog_kpis, start, end, narrow_from, narrow_to):
    """(label, kind, cli arguments without --format/--dialect/--db)."""
    out = []
    full = ["--from", start, "--to", end]
    narrow = ["--from", narrow_from, "--to", narrow_to]
    breakdowns = {"F0": "start_type", "F1": "network_state", "F2": "user_state", "F3": "user_state", "F4": "goal_type"}
    for funnel in ["F0", "F1", "F2", "F3", "F4"]:
        out.append((f"funnel {funnel}", "funnel", [funnel, *full]))
        out.append((f"funnel {funnel} narrow range, window 1d", "funnel", [funnel, *narrow, "--window", "1d"]))
        out.append((f"funnel {funnel} actor user", "funnel", [funnel, *full, "--actor", "user"]))
        out.append((f"funnel {funnel} breakdown {breakdowns[funnel]}", "funnel", [funnel, *narrow, "--breakdown", breakdowns[funnel]]))
    for label, arguments in FUNNEL_MODES:
        for name, bounds in (("", full), (" narrow", narrow)):
            out.append((f"funnel {label}{name}", "funnel", [*arguments, *bounds]))
    # The release dimensions (docs/catalog-releases.md): any funnel breaks down by them.
    out.append(("funnel F0 breakdown catalog_version", "funnel", ["F0", *full, "--breakdown", "catalog_version"]))
    out.append(("funnel F2 breakdown app_version", "funnel", ["F2", *full, "--breakdown", "app_version"]))
    for kpi in catalog_kpis:
        out.append((f"kpi {kpi}", "kpi", [kpi, *full]))
        out.append((f"kpi {kpi} actor user, narrow", "kpi", [kpi, *narrow, "--actor", "user"]))
    for dashboard, panel in PANELS:
        out.append((f"panel {dashboard}/{panel}", "panel", [dashboard, panel, *full]))
        out.append((f"panel {dashboard}/{panel} narrow", "panel", [dashboard, panel, *narrow]))
    for anchor, direction, depth in PATHS:
        for name, bounds in (("", full), (" narrow", narrow)):
            out.append((f"paths {direction} {anchor} depth {depth}{name}", "paths", ["--anchor", anchor, "--direction", direction, "--depth", depth, *bounds]))
    for interval, returning, actor in RETENTION:
        for name, bounds in (("", full), (" narrow", narrow)):
            out.append((f"retention per {interval} returning {returning} by {actor}{name}", "retention",
                        ["--interval", interval, "--returning", returning, "--actor", actor, *bounds]))
    for series, measure, interval, breakdown in TRENDS:
        for name, bounds in (("", full), (" narrow", narrow)):
            arguments = ["--series", series, "--measure", measure, "--interval", interval, *bounds] + (["--breakdown", breakdown] if breakdown else [])
            out.append((f"trend {series} {measure} per {interval}{' by ' + breakdown if breakdown else ''}{name}", "trend", arguments))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--db", required=True, help="the embedded store filled by handz-analytics import (what the CLI answers from)")
    parser.add_argument("--events", help="a SQLite file with the store's events and install_first_seen tables (handz-analytics "
                                         "export sqlite; a segment store has no events table): what the other engines load and "
                                         "the SQLite dialect runs on. Default: --db, a store of the SQLite log")
    parser.add_argument("--work", required=True)
    parser.add_argument("--postgres", help="libpq connection string; omit to skip PostgreSQL")
    parser.add_argument("--postgres-store", help="libpq connection string of a store the ingest nodes filled (engine postgres-store)")
    parser.add_argument("--lake", help="root of the lake written by export lake (engines spark-lake, clickhouse-lake, duckdb-lake)")
    parser.add_argument("--engines", default=",".join(DIALECTS), help=f"comma-separated: {', '.join(DIALECTS + IN_PLACE)}")
    parser.add_argument("--skip-bigquery", action="store_true")
    parser.add_argument("--lake-cases", choices=["all", "reading"], default="all",
                        help="reading: the lake engines run each funnel and KPI once over the full range, F0 per user and "
                             "by catalog_version — what proves they read the lake files; the variants (narrow ranges, "
                             "windows, other breakdowns) test each dialect's SQL, which the table engines run in full; "
                             "spark-lake runs the fewer cases of SPARK_LAKE_CASES")
    parser.add_argument("--from", dest="start", required=True)
    parser.add_argument("--to", dest="end", required=True)
    parser.add_argument("--narrow-from", required=True)
    parser.add_argument("--narrow-to", required=True)
    args = parser.parse_args()
    events = args.events or args.db

    started = time.monotonic()
    columns, rows = read_store(events)
    first_seen, older = read_first_seen(events)
    ndjson = os.path.join(args.work, "events-rows.ndjson")
    with open(ndjson, "w") as out:
        for row in rows:
            out.write(json.dumps(dict(zip(columns, row))) + "\n")
    print(f"dataset: {len(rows)} stored events, {len(first_seen)} installs' first-seen times "
          f"({older} first seen before their first stored app_open)")

    kpis = [line.split(",")[0] for line in cli(args.binary, "kpi", "--all", "--db", args.db, "--format", "csv").splitlines()[1:]]
    all_cases = cases(kpis, args.start, args.end, args.narrow_from, args.narrow_to)

    # Expected answers: the CLI on the store (panels: their SQLite SQL on its events table).
    expected = {}
    measures = {}  # each KPI's measure, which says how its SQL's rows read
    store = SQLiteStore(events)
    sql_text = SQLTexts(args.binary)
    sql_text.fetch([("panel", *arguments, "--dialect", "sqlite") for _, kind, arguments in all_cases if kind == "panel"] +
                   ([] if args.skip_bigquery else [(kind, *arguments, "--dialect", "bigquery") for _, kind, arguments in all_cases]))
    for label, kind, arguments in all_cases:
        if kind == "panel":
            expected[label] = panel_rows(store.query(sql_text("panel", *arguments, "--dialect", "sqlite")))
            continue
        report = json.loads(cli(args.binary, kind, *arguments, "--db", args.db, "--format", "json"), parse_float=Decimal)
        expected[label] = (funnel_expected(report) if kind == "funnel" else trend_expected(report) if kind == "trend"
                           else retention_expected(report) if kind == "retention" else path_expected(report) if kind == "paths"
                           else kpi_expected(report))
        if kind == "kpi":
            measures[label] = report["measure"]
    store.close()

    failures = 0
    passed = 0

    # BigQuery: the SQL must parse.
    import sqlglot
    for label, kind, arguments in ([] if args.skip_bigquery else all_cases):
        sql = sql_text(kind, *arguments, "--dialect", "bigquery")
        try:
            sqlglot.parse_one(sql, read="bigquery")
            passed += 1
        except sqlglot.errors.ParseError as error:
            failures += 1
            print(f"FAIL bigquery {label}: does not parse ({str(error).splitlines()[0]})")
    if not args.skip_bigquery:
        print(f"bigquery: {len(all_cases)} queries parsed with sqlglot {sqlglot.__version__}")

    engines = [name for name in args.engines.split(",") if name]
    for name in engines:
        engine_started = time.monotonic()
        dialect = name.split("-")[0]
        lake = ["--lake", args.lake] if name.endswith("-lake") else []
        ddl = sql_text("ddl", "--dialect", dialect)
        if name == "sqlite":
            engine = SQLiteStore(events)
        elif name == "postgres-store":
            engine = PostgresStore(args.postgres_store)
        elif name.endswith("-lake"):
            engine = LakeReader(name, args.work)
        elif name == "postgres":
            if not args.postgres:
                print("postgres: skipped (no server)")
                continue
            engine = Postgres(args.postgres, ddl, columns, rows)
        elif name == "duckdb":
            engine = DuckDB(ndjson, ddl, columns)
        elif name == "clickhouse":
            engine = ClickHouse(ndjson, ddl, columns, os.path.join(args.work, "chdb"))
        elif name == "spark":
            engine = Spark(ndjson, ddl, columns, args.work)
        else:
            raise SystemExit(f"unknown engine {name}")
        if name in ("postgres", "duckdb", "clickhouse", "spark"):
            load_first_seen(engine, first_seen)
        count = len(rows) if lake else engine.query("SELECT COUNT(*) FROM events")[0][0]
        if int(count) != len(rows):
            failures += 1
            print(f"FAIL {name}: loaded {count} events, expected {len(rows)}")
        seen = len(first_seen) if lake else engine.query("SELECT COUNT(*) FROM install_first_seen")[0][0]
        if int(seen) != len(first_seen):
            failures += 1
            print(f"FAIL {name}: loaded {seen} first-seen rows, expected {len(first_seen)}")
        mismatches = 0
        # `sql panel`, `sql trend`, `sql retention` and `sql paths` have no --lake: the lake engines run funnels and KPIs only.
        engine_cases = [case for case in all_cases if not (lake and case[1] in ("panel", "trend", "retention", "paths"))]
        if lake and args.lake_cases == "reading":
            engine_cases = [case for case in engine_cases if case[0] in LAKE_READING_CASES or
                            (case[1] in ("funnel", "kpi") and case[2][1:] == ["--from", args.start, "--to", args.end])]
            if name == "spark-lake":
                engine_cases = [case for case in engine_cases if case[0] in SPARK_LAKE_CASES]
                missing = SPARK_LAKE_CASES - {case[0] for case in engine_cases}
                if missing:
                    raise SystemExit(f"spark-lake: cases named but not generated: {sorted(missing)}")
        sql_text.fetch([(kind, *arguments, "--dialect", dialect, *lake) for _, kind, arguments in engine_cases])
        for label, kind, arguments in engine_cases:
            sql = sql_text(kind, *arguments, "--dialect", dialect, *lake)
            query_started = time.monotonic()
            try:
                try:
                    result = engine.query(sql)
                except Exception as first:  # noqa: BLE001 - an engine error (not a wrong number) is retried once
                    print(f"retrying {name} {label} once after an engine error: {str(first).splitlines()[0][:200]}")
                    result = engine.query(sql)
            except Exception as error:  # noqa: BLE001 - report and go on
                failures += 1
                mismatches += 1
                print(f"FAIL {name} {label}: query failed: {str(error).splitlines()[0][:300]}")
                continue
            elapsed = time.monotonic() - query_started
            if elapsed > 5:
                print(f"slow: {name} {label} {elapsed:.1f} s")
            got = (funnel_rows(result) if kind == "funnel" else panel_rows(result) if kind == "panel" else trend_rows(result) if kind == "trend"
                   else panel_rows(result) if kind == "retention" else path_rows(result) if kind == "paths" else kpi_rows(measures[label], result))
            if got != expected[label]:
                failures += 1
                mismatches += 1
                if kind in ("panel", "trend", "retention", "paths"):
                    print(f"FAIL {name} {label}: {len(got)} rows, {sum(a != b for a, b in zip(got, expected[label]))} differ from SQLite's {len(expected[label])}")
                else:
                    print(f"FAIL {name} {label}:\n  sqlite: {sorted(expected[label].items(), key=str) if kind == 'funnel' else expected[label]}\n"
                          f"  {name}: {sorted(got.items(), key=str) if kind == 'funnel' else got}")
            else:
                passed += 1
        engine.close()
        print(f"{name}: {len(engine_cases) - mismatches}/{len(engine_cases)} queries identical to SQLite ({time.monotonic() - engine_started:.1f} s)")

    print(f"engine agreement: {time.monotonic() - started:.1f} s")
    print(f"{passed} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
