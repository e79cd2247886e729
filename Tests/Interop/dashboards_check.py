#!/usr/bin/env python3
"""The rendered report and the Grafana export work outside Swift.

1. Screenshots (PNG, from headless Chromium) of every dashboard page are not blank: enough
   non-background pixels and enough variation, with Pillow.
2. The Grafana JSON of both dialects parses and imports as is: schemaVersion, uid, title, the
   data source input, panels with gridPos, a data source type and at least one rawSql each.
3. Every query, with Grafana's time macros replaced by the concrete range, runs on its engine —
   PostgreSQL on loopback and ClickHouse through chdb — over the same simulated store; funnel and
   single-value (KPI, conversion) panels return exactly the numbers the rendered report shows
   for the same range, so the macros stand for the right bounds.

Never prints event values: only dashboard, panel and query names, counts and sizes.
"""
import argparse
import glob
import html
import json
import os
import re
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engine_agreement import ClickHouse, Postgres, cli, read_store  # noqa: E402

PLUGINS = {"postgres": "grafana-postgresql-datasource", "clickhouse": "grafana-clickhouse-datasource"}


def check_screenshots(directory, expected):
    from PIL import Image, ImageStat
    failures = []
    shots = sorted(glob.glob(os.path.join(directory, "*.png")))
    if len(shots) != expected:
        failures.append(f"{len(shots)} screenshots, expected {expected}")
    for path in shots:
        image = Image.open(path).convert("L")
        histogram = image.histogram()
        background = max(range(256), key=lambda v: histogram[v])
        drawn = sum(count for value, count in enumerate(histogram) if abs(value - background) > 24) / (image.width * image.height)
        spread = ImageStat.Stat(image).stddev[0]
        # Dashboard pages carry charts; the index is text and links only.
        index = os.path.basename(path) == "index.png"
        ok = (drawn > 0.005 and spread > 4) if index else (drawn > 0.02 and spread > 8)
        print(f"screenshot {os.path.basename(path)}: {image.width}x{image.height}, {drawn:.1%} drawn, stddev {spread:.1f}{'' if ok else ' BLANK'}")
        if not ok:
            failures.append(f"{os.path.basename(path)} looks blank")
    return failures


def substitute(sql, flavor, from_ms, to_ms):
    """What Grafana's macro engines put in for a concrete time range."""
    if flavor == "postgres":
        iso = lambda ms: datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return sql.replace("$__timeFrom()", f"'{iso(from_ms)}'").replace("$__timeTo()", f"'{iso(to_ms)}'")
    return sql.replace("$__fromTime_ms", f"fromUnixTimestamp64Milli({from_ms})").replace("$__toTime_ms", f"fromUnixTimestamp64Milli({to_ms})")


def check_grafana(directory, flavor, dashboards):
    failures = []
    files = sorted(glob.glob(os.path.join(directory, f"*.{flavor}.json")))
    if len(files) != dashboards:
        failures.append(f"{flavor}: {len(files)} dashboard files, expected {dashboards}")
    queries = []
    for path in files:
        with open(path) as handle:
            board = json.load(handle)
        name = os.path.basename(path)
        for key in ["uid", "title", "schemaVersion", "panels", "__inputs"]:
            if not board.get(key):
                failures.append(f"{name}: no {key}")
        if board["__inputs"][0].get("pluginId") != PLUGINS[flavor]:
            failures.append(f"{name}: data source input is not {PLUGINS[flavor]}")
        for panel in board["panels"]:
            title = panel.get("title", "?")
            grid = panel.get("gridPos", {})
            if not all(isinstance(grid.get(k), int) for k in ["h", "w", "x", "y"]):
                failures.append(f"{name} / {title}: no gridPos")
            if panel.get("datasource", {}).get("type") != PLUGINS[flavor]:
                failures.append(f"{name} / {title}: data source type")
            targets = panel.get("targets") or []
            if not targets or not all(t.get("rawSql", "").strip() for t in targets):
                failures.append(f"{name} / {title}: a panel without a query")
            for target in targets:
                if target.get("datasource", {}).get("type") != PLUGINS[flavor]:
                    failures.append(f"{name} / {title}: target data source type")
                queries.append((name, panel, ord(target["refId"]) - ord("A"), target["rawSql"]))
    return failures, queries


def report_tables(directory):
    """Panel title -> list of data tables (rows of cell texts, header first) from the report."""
    panels = {}
    for path in glob.glob(os.path.join(directory, "*.html")):
        with open(path) as handle:
            page = handle.read()
        for section in re.findall(r'<section class="panel".*?</section>', page, re.S):
            title = html.unescape(re.search(r"<h2[^>]*>(.*?)</h2>", section, re.S).group(1))
            tables = []
            for table in re.findall(r"<table.*?</table>", section, re.S):
                rows = [[html.unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
                tables.append(rows)
            panels[title] = tables
    return panels


def number(cell):
    return int(cell.replace(",", "")) if re.fullmatch(r"-?[\d,]+", cell) else None


def compare(panel, tables, result, index):
    """The report's numbers for a funnel or single-value panel against a Grafana query's rows."""
    # Funnel rows: (breakdown, step, actors, median_ms, links); the table's last row is the
    # success, step n + 1 in the SQL.
    if panel["type"] == "barchart" and len(result) and len(result[0]) == 5 and tables and tables[0] and tables[0][0][:3] == ["Step", "Events", tables[0][0][2]]:
        shown = [number(row[2]) for row in tables[0][1:]]
        got = {int(r[1]): int(r[2]) for r in result if r[0] is None}
        return shown == [got.get(step, 0) for step in range(1, len(shown) + 1)]
    if panel["type"] == "table" and tables and tables[-1] and tables[-1][0][:4] == ["Measure", "Value", "Numerator", "Denominator"]:
        row = tables[-1][1 + index]
        if row[2] == "–":  # a median: (median_ms, actors)
            return number(row[3]) == int(result[0][1] or 0)
        same = [number(row[2]), number(row[3])] == [int(result[0][0] or 0), int(result[0][1] or 0)]
        # Cohort KPIs also return left_out (members whose window ends after the data ends).
        if len(result[0]) > 2 and len(row) > 4:
            same = same and number(row[4]) == int(result[0][2] or 0)
        return same
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--db", required=True, help="a SQLite file with the store's events table (handz-analytics export sqlite)")
    parser.add_argument("--work", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--grafana", required=True)
    parser.add_argument("--report", required=True, help="the report rendered over --from/--to")
    parser.add_argument("--postgres", required=True)
    parser.add_argument("--from", dest="start", required=True)
    parser.add_argument("--to", dest="end", required=True)
    args = parser.parse_args()

    from_ms = int(datetime.fromisoformat(args.start).replace(tzinfo=timezone.utc).timestamp() * 1000)
    to_ms = int(datetime.fromisoformat(args.end).replace(tzinfo=timezone.utc).timestamp() * 1000)
    dashboards = len(glob.glob("dashboards/*.yaml"))
    failures = check_screenshots(args.screenshots, dashboards + 1)
    shown = report_tables(args.report)

    columns, rows = read_store(args.db)
    ndjson = os.path.join(args.work, "events-rows.ndjson")
    with open(ndjson, "w") as out:
        for row in rows:
            out.write(json.dumps(dict(zip(columns, row))) + "\n")
    print(f"dataset: {len(rows)} stored events")

    for flavor in ["postgres", "clickhouse"]:
        bad, queries = check_grafana(args.grafana, flavor, dashboards)
        failures += bad
        ddl = cli(args.binary, "sql", "ddl", "--dialect", flavor)
        engine = Postgres(args.postgres, ddl, columns, rows) if flavor == "postgres" else ClickHouse(ndjson, ddl, columns, os.path.join(args.work, "chdb"))
        ran = compared = 0
        for name, panel, ref, sql in queries:
            title = panel["title"]
            concrete = substitute(sql, flavor, from_ms, to_ms)
            if "$__" in concrete:
                failures.append(f"{flavor} {name} / {title} {ref}: a macro left after substitution")
                continue
            try:
                result = engine.query(concrete)
            except Exception as error:  # noqa: BLE001 — report every failing query, then fail
                failures.append(f"{flavor} {name} / {title} {ref}: {type(error).__name__}: {str(error).splitlines()[0][:300]}")
                continue
            ran += 1
            same = compare(panel, shown.get(title, []), result, ref)
            if same is False:
                failures.append(f"{flavor} {name} / {title} {ref}: differs from the rendered report")
            compared += same is True
        engine.close()
        print(f"{flavor}: {ran} of {len(queries)} Grafana queries ran; {compared} funnel and single-value queries equal the report")
        if compared < 10:
            failures.append(f"{flavor}: only {compared} queries compared with the report")

    for failure in failures:
        print(f"FAIL {failure}")
    print("dashboards check: " + ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
