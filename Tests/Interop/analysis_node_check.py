#!/usr/bin/env python3
"""An analysis node's served pages against the SQL on the shared PostgreSQL store (issue 36 §5).

    analysis_node_check.py --base URL --analyst-id ID --binary BIN --postgres DSN --from DAY --to DAY

Signs in to the analysis node (`serve --follow`) with the analyst key (its secret from
HANDZ_ANALYST_SECRET, never argv), opens every dashboard over the custom range FROM..TO (both
inclusive), and for every funnel table on every page asks PostgreSQL the same question —
`handz-analytics sql funnel ID --window … --actor … --dialect postgres` over [FROM, TO + 1 day) on
the store the ingest nodes wrote — and compares each step's actors. Then the same for the
explorer with an ad-hoc funnel and a strict order, and for the trends page. Prints names and
counts only.
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from datetime import date, timedelta

import psycopg

failures = 0


def check(condition: bool, what: str) -> None:
    global failures
    if not condition:
        failures += 1
    print(("PASS " if condition else "FAIL ") + what)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def http(base: str, path: str, method: str = "GET", form: dict | None = None, cookie: str | None = None) -> tuple[int, dict, str]:
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Origin": base})
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    if cookie:
        request.add_header("Cookie", cookie)
    try:
        with OPENER.open(request, timeout=120) as response:
            return response.status, dict(response.headers), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8", "replace") if error.fp else ""


def funnel_tables(body: str) -> list[tuple[dict, dict]]:
    """(attributes, {step: actors}) of every funnel table without a breakdown on a page."""
    out = []
    for match in re.finditer(r'<table id="[^"]*" class="data"([^>]*)>(.*?)</table>', body, re.S):
        attributes = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', match.group(1)))
        if "funnel" not in attributes or "breakdown" in attributes:
            continue
        rows = {}
        for step, cells in re.findall(r'<tr data-step="([^"]+)">(.*?)</tr>', match.group(2), re.S):
            actors = re.search(r'<td class="actors">([^<]*)</td>', cells)
            if actors:
                rows[step] = int(html.unescape(actors.group(1)).replace(",", ""))
        out.append((attributes, rows))
    return out


def postgres_funnel(connection, binary: str, arguments: list[str]) -> dict:
    sql = subprocess.run([binary, "sql", "funnel", *arguments, "--dialect", "postgres"], check=True, capture_output=True, text=True).stdout
    rows = connection.execute(sql).fetchall()
    return {str(step): int(actors) for breakdown, step, actors, *_ in rows if breakdown is None and int(actors) > 0}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--analyst-id", required=True)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--postgres", required=True)
    parser.add_argument("--from", dest="start", required=True)
    parser.add_argument("--to", dest="end", required=True)
    parser.add_argument("--db", help="the analysis node's copy: `funnel F0`…`F4 --db` on it must equal the SQL on PostgreSQL too")
    args = parser.parse_args()
    base = args.base.rstrip("/")
    secret = os.environ.get("HANDZ_ANALYST_SECRET", "")
    start, end = date.fromisoformat(args.start), date.fromisoformat(args.end)
    bounds = ["--from", start.isoformat(), "--to", (end + timedelta(days=1)).isoformat()]
    page_range = f"range=custom&from={start.isoformat()}&to={end.isoformat()}"

    status, headers, _ = http(base, "/dashboards/login", "POST", {"key_id": args.analyst_id, "secret": secret})
    cookie = next((value.split(";")[0] for key, value in headers.items() if key.lower() == "set-cookie" and value.startswith("handz_session=")), None)
    check(status == 303 and cookie is not None, f"the analyst signs in to the analysis node (status {status})")
    if cookie is None:
        return 1
    status, _, index = http(base, "/dashboards/", cookie=cookie)
    dashboards = sorted(set(re.findall(r'href="/dashboards/d/([a-z0-9_-]+)', index)))
    check(status == 200 and len(dashboards) > 0, f"the analysis node lists {len(dashboards)} dashboards")
    tables = 0
    with psycopg.connect(args.postgres) as connection:
        for dashboard in dashboards:
            status, _, body = http(base, f"/dashboards/d/{dashboard}?{page_range}", cookie=cookie)
            check(status == 200, f"{dashboard}: 200")
            for attributes, rows in funnel_tables(body):
                funnel = attributes["funnel"]
                seconds = int(attributes.get("window-ms", "0")) // 1000
                expected = postgres_funnel(connection, args.binary, [funnel, *bounds, "--window", f"{seconds}s", "--actor", attributes.get("actor", "install")])
                # The success row is step n + 1 in the SQL's rows.
                step_count = len(rows) - (1 if "success" in rows else 0)
                served = {(str(step_count + 1) if step == "success" else step): actors for step, actors in rows.items() if actors > 0}
                check(served == expected, f"{dashboard}: {funnel} (window {seconds} s) on the page = the SQL on PostgreSQL ({sum(served.values())} actors over {len(served)} rows)")
                tables += 1
        # The explorer: an ad-hoc funnel, in strict order.
        steps = "app_open,onboarding_viewed,flow_builder_opened|library_viewed"
        status, _, body = http(base, f"/dashboards/explore?steps={urllib.parse.quote(steps, safe=',|')}&order=strict&{page_range}", cookie=cookie)
        explored = funnel_tables(body)
        expected = postgres_funnel(connection, args.binary, ["--steps", steps, "--order", "strict", *bounds])
        check(status == 200 and len(explored) == 1 and {k: v for k, v in explored[0][1].items() if v > 0} == expected,
              f"the explorer (strict order) = the SQL on PostgreSQL ({sum(expected.values())} actors)")
        # The trends page: installs per day.
        status, _, body = http(base, f"/dashboards/trends?series=app_open&measure=installs&{page_range}", cookie=cookie)
        table = re.search(r'<table id="p-trend-table".*?</table>', body, re.S)
        served = [int(v.replace(",", "")) for v in re.findall(r'<td>([0-9,]+)</td>', table.group(0))] if table else []
        sql = subprocess.run([args.binary, "sql", "trend", "--series", "app_open", "--measure", "installs", *bounds, "--dialect", "postgres"],
                             check=True, capture_output=True, text=True).stdout
        by_period = {int(period): int(n) for series, period, value, other, n in connection.execute(sql).fetchall() if int(period) >= 0}
        expected = [by_period.get(day, 0) for day in range((end - start).days + 1)]
        check(served == expected, f"the trends page (installs per day) = the SQL on PostgreSQL ({sum(expected)} over {len(expected)} days)")
        # The command line on the copy (what `funnel --db` answers on the analysis node's machine).
        for funnel in (["F0", "F1", "F2", "F3", "F4"] if args.db else []):
            report = json.loads(subprocess.run([args.binary, "funnel", funnel, "--db", args.db, *bounds, "--format", "json"],
                                               check=True, capture_output=True, text=True).stdout)
            rows = {str(step["index"]): step["actors"] for step in report["steps"] if step["actors"] > 0}
            if report.get("success", {}).get("actors", 0) > 0:
                rows[str(len(report["steps"]) + 1)] = report["success"]["actors"]
            expected = postgres_funnel(connection, args.binary, [funnel, *bounds])
            check(rows == expected, f"funnel {funnel} --db on the copy = the SQL on PostgreSQL ({sum(expected.values())} actors)")
    # The dashboards draw F0, F1 and F4 as funnel tables (F2 and F3 as other panels).
    check(tables >= 3, f"{tables} funnel tables compared")
    print(f"analysis node: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
