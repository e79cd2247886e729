#!/usr/bin/env python3
"""The live dashboards of `handz-analytics serve` (/dashboards/), in a real browser.

Run by scripts/check-served-dashboards.sh against a server it started on loopback over a simulated
store. Headless Chromium (Debian's `chromium`) driven through `chromedriver` with Selenium 4, plus
plain urllib for what a browser hides (status codes, headers, redirects):

 1. security without a session: the pages redirect (303) to the login page and show no figures;
    ingest and admin keys and a wrong secret cannot log in (401, the ids and secrets never echoed);
    a login POST from a foreign Origin is refused (403); CSP and nosniff on every response; the
    session cookie's attributes;
 2. login in the browser, the index lists the six dashboards;
 3. each dashboard renders panels and no error;
 4. a custom range set through the form: the F0 funnel and the activation_rate_7d KPI equal the CLI's
    (`funnel`, `kpi`; the page's `to` is the last day, the CLI's is exclusive);
 5. comparison with the previous period: the previous column equals the CLI on the period before;
 6. F0 broken down by start_type: each bucket's steps equal the CLI's breakdown;
 7. the funnel explorer: three steps picked with the selects (and once typed as text) equal
    `funnel --steps`, and the URL carries the text form;
 8. an unknown event in the explorer: 400 and an error that does not repeat it; crafted parameters:
    400 (404 for an unknown dashboard) and never reflected;
 9. trends (issue 35 §1): two series picked with the selects, installs per week; a filtered series
    typed as text, users per day broken down by launch_source: every period and total equals
    `trend` on the same store, the URL carries the text form;
10. retention (issue 35 §2): daily cohorts returning on any event, every count equal to `retention`;
11. paths (issue 35 §4): three steps after screen_viewed, every path equal to `paths`;
12. logout: the session is gone (browser and the old cookie alike).

A PNG screenshot after every step (NN-name.png). Never prints event values or secrets: only ids,
counts and pass/fail. Exits 1 with a summary of the failures.
"""
import argparse
import html
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import traceback
import urllib.parse
import urllib.request
from datetime import date, timedelta

from selenium import webdriver
from selenium.common.exceptions import (ElementClickInterceptedException, ElementNotInteractableException, StaleElementReferenceException,
                                        TimeoutException,
                                        WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

DASHBOARDS = ["activation_onboarding", "builder_usage", "launch_health", "monetization", "practice_mastery", "sharing_loop"]
WAIT = 120          # seconds, every explicit wait
HTTP_TIMEOUT = 120  # seconds, every urllib request
CLI_TIMEOUT = 300   # seconds, every CLI run
LOGIN = "/dashboards/login"
NOT_SET = "(not set)"

failures = []


def check(ok, what):
    """Records one assertion; prints PASS/FAIL with `what` (ids and counts only)."""
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


# ----------------------------------------------------------------------------- HTTP (urllib)


def page_replaced(old):
    """A wait condition: the page that held `old` has gone. Selenium's staleness_of asks the old
    element whether it is enabled; while Chromium swaps documents, DevTools may answer "Node with
    given id does not belong to the document" instead of a stale-element error. Both mean the old
    page is gone, so both end the wait. (Retrying the whole step instead is wrong for steps that
    change state: a second logout finds no logout button.)"""
    def condition(driver):
        try:
            old.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return True
            raise
    return condition

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx surfaces as an HTTPError, its Location unfollowed


OPENER = urllib.request.build_opener(NoRedirect())


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        return self.headers.get(name) or ""

    def header_all(self, name):
        return self.headers.get_all(name) or []

    @property
    def location_path(self):
        return urllib.parse.urlparse(self.header("Location")).path


def http(base, path, method="GET", form=None, headers=None, cookie=None):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    if cookie:
        request.add_header("Cookie", cookie)
    try:
        with OPENER.open(request, timeout=HTTP_TIMEOUT) as response:
            return Response(response.status, response.headers, response.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as error:
        body = error.read().decode("utf-8", "replace") if error.fp else ""
        return Response(error.code, error.headers, body)


def check_security_headers(response, what):
    csp = response.header("Content-Security-Policy")
    check(csp.startswith("default-src 'none'") and "style-src 'unsafe-inline'" in csp,
          f"{what}: Content-Security-Policy starts with default-src 'none' and allows inline styles")
    check(response.header("X-Content-Type-Options").strip().lower() == "nosniff", f"{what}: X-Content-Type-Options: nosniff")


FIGURE_MARKERS = ['data-funnel', 'data-kpi', 'class="actors"', 'class="numerator"', 'class="denominator"', '<table']


def check_redirects_to_login(response, what):
    check(response.status == 303, f"{what}: 303 (got {response.status})")
    check(response.location_path == LOGIN, f"{what}: Location is {LOGIN}")
    check(not any(marker in response.body for marker in FIGURE_MARKERS), f"{what}: no figures in the body")
    check_security_headers(response, what)


def sets_session(response):
    """A Set-Cookie that gives a session (clearing one — empty value or Max-Age=0 — does not)."""
    for cookie in response.header_all("Set-Cookie"):
        name, _, rest = cookie.partition("=")
        value = rest.split(";")[0].strip()
        if name.strip() == "handz_session" and value and "max-age=0" not in cookie.lower().replace(" ", ""):
            return True
    return False


def reflected(body, text):
    """The text, as sent or HTML-escaped, in a response body."""
    return text in body or html.escape(text, quote=False) in body or html.escape(text) in body


# ----------------------------------------------------------------------------- the CLI

def cli(binary, args):
    result = subprocess.run([binary, *args], capture_output=True, text=True, timeout=CLI_TIMEOUT)
    if result.returncode != 0:
        first = (result.stderr.strip().splitlines() or ["(no message)"])[0][:200]
        raise RuntimeError(f"{os.path.basename(binary)} {args[0]} exited {result.returncode}: {first}")
    return json.loads(result.stdout)


def cli_funnel(opts, start, end_exclusive, name="F0", steps=None, breakdown=None):
    args = ["funnel"] + ([name] if steps is None else ["--steps", steps])
    args += ["--db", opts.db, "--from", start.isoformat(), "--to", end_exclusive.isoformat(), "--format", "json"]
    if breakdown:
        args += ["--breakdown", breakdown]
    return cli(opts.binary, args)


def funnel_rows(report):
    """{"1": actors, "2": …, "success": actors} of a CLI funnel report (or one breakdown bucket)."""
    rows = {str(step["index"]): step["actors"] for step in report["steps"]}
    if report.get("success"):
        rows["success"] = report["success"]["actors"]
    return rows


def cli_kpi(opts, kpi, start, end_exclusive):
    report = cli(opts.binary, ["kpi", kpi, "--db", opts.db, "--from", start.isoformat(), "--to", end_exclusive.isoformat(), "--format", "json"])
    if isinstance(report, list):
        report = next(item for item in report if item.get("kpi") == kpi)
    return report


# ----------------------------------------------------------------------------- the browser

class Browser:
    def __init__(self, opts):
        self.opts = opts
        self.step = 0
        options = webdriver.ChromeOptions()
        options.binary_location = opts.chromium
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1200,2400", "--hide-scrollbars", "--lang=en-US"]:
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(opts.chromedriver), options=options)
        self.driver.set_page_load_timeout(300)
        self.driver.implicitly_wait(0)
        self.driver.set_window_size(1200, 2400)

    def quit(self):
        self.driver.quit()

    def shot(self, name, guide=False):
        """A screenshot NN-name.png; with `guide`, also name.png in --guide-screenshots (the
        pictures the guides show, taken by this check)."""
        self.step += 1
        paths = [os.path.join(self.opts.screenshots, f"{self.step:02d}-{name}.png")]
        if guide and self.opts.guide_screenshots:
            paths.append(os.path.join(self.opts.guide_screenshots, f"{name}.png"))
        for path in paths:
            try:
                check(self.driver.save_screenshot(path), f"screenshot {os.path.basename(path)}")
            except WebDriverException as error:
                check(False, f"screenshot {os.path.basename(path)}: {type(error).__name__}")

    def wait(self, condition, what):
        try:
            return WebDriverWait(self.driver, WAIT).until(condition)
        except TimeoutException:
            check(False, f"{what} (waited {WAIT} s)")
            return None

    def loaded(self):
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete", "page loaded")

    def get(self, path):
        self.driver.get(self.opts.base + path)
        self.loaded()

    @property
    def path(self):
        return urllib.parse.urlparse(self.driver.current_url).path

    @property
    def query(self):
        return urllib.parse.parse_qs(urllib.parse.urlparse(self.driver.current_url).query, keep_blank_values=True)

    def find(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def one(self, css, what):
        found = self.find(css)
        check(len(found) > 0, f"{what}: {css} present")
        return found[0] if found else None

    def click(self, element):
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        try:
            element.click()
        except (ElementClickInterceptedException, ElementNotInteractableException):
            self.driver.execute_script("arguments[0].click()", element)

    def submit_with(self, button, what):
        """Clicks a submit button and waits for the next page to load."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.click(button)
        if self.wait(page_replaced(old), f"{what}: a new page") is not None:
            self.loaded()

    def set_value(self, css, value):
        """Date and text inputs, set by script (date inputs are awkward to type into headless)."""
        element = self.one(css, "control")
        if element is not None:
            self.driver.execute_script(
                "arguments[0].value = arguments[1];"
                "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
                "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", element, value)
        return element

    def select(self, css, value, what):
        element = self.one(css, what)
        if element is None:
            return False
        # The DOM value: an <option> without a value attribute has its text as its value.
        select = Select(element)
        for index, option in enumerate(select.options):
            if option.get_attribute("value") == value:
                select.select_by_index(index)
                return True
        check(False, f"{what}: {css} offers the option {value!r}")
        return False

    def tick(self, css, on):
        element = self.one(css, "checkbox")
        if element is not None and element.is_selected() != on:
            self.click(element)
        return element

    def session_cookie(self):
        cookie = self.driver.get_cookie("handz_session")
        return f"handz_session={cookie['value']}" if cookie else None


def text_of(element):
    return (element.get_attribute("textContent") or "").strip()


def number(text):
    """'1,234' → 1234; '–' (no value) → None. Raises ValueError for anything else."""
    cleaned = re.sub(r"[,\s\u00a0\u202f\u2009']", "", text)
    if cleaned in ("", "–", "—", "-"):
        return None
    return int(cleaned)


def table_rows(table, cell):
    """{"1": n, …, "success": n} read from the rows' `td.<cell>` (textContent: works inside a closed <details>)."""
    rows = {}
    for row in table.find_elements(By.CSS_SELECTOR, "tr[data-step]"):
        cells = row.find_elements(By.CSS_SELECTOR, f"td.{cell}")
        if cells:
            try:
                rows[row.get_attribute("data-step")] = number(text_of(cells[0]))
            except ValueError:
                rows[row.get_attribute("data-step")] = "unreadable"
    return rows


def compare_rows(page, expected, what, none_is_zero=False):
    """Each expected row present on the page with the same actors."""
    check("1" in page, f"{what}: step 1 on the page")
    for step, actors in expected.items():
        shown = page.get(step, "missing")
        if none_is_zero and shown is None:
            shown = 0
        check(shown == actors, f"{what}: step {step} actors page {shown} = CLI {actors}")
    extra = sorted(set(page) - set(expected))
    check(not extra, f"{what}: no rows the CLI does not have (extra: {len(extra)})")


def funnel_table(browser, funnel, what):
    tables = browser.find(f'table.data[data-funnel="{funnel}"]:not([data-breakdown])')
    check(len(tables) >= 1, f"{what}: the {funnel} table is on the page")
    return tables[0] if tables else None


# ----------------------------------------------------------------------------- the steps

def step_security(opts, keys):
    print("== 1. security without a session (HTTP)")
    base = opts.base
    for path in ["/dashboards/", "/dashboards/d/activation_onboarding", "/dashboards/explore?steps=app_open,onboarding_viewed"]:
        check_redirects_to_login(http(base, path), f"GET {path} without a session")
    check_redirects_to_login(http(base, "/dashboards/", cookie="handz_session=forged0123456789"), "GET /dashboards/ with a forged session cookie")

    page = http(base, LOGIN)
    check(page.status == 200, f"GET {LOGIN}: 200 (got {page.status})")
    check_security_headers(page, f"GET {LOGIN}")
    for needle in ['id="login"', 'name="key_id"', 'name="secret"', 'id="login-submit"']:
        check(needle in page.body, f"GET {LOGIN}: the form has {needle}")

    everything = [v for v in keys.values() if v]
    own_origin = {"Origin": base}
    attempts = [
        ("the ingest key", keys["ingest_id"], keys["ingest_secret"]),
        ("the admin key", keys["admin_id"], keys["admin_secret"]),
        ("the analyst id with a wrong secret", keys["analyst_id"], "0" * 64 if keys["analyst_secret"] != "0" * 64 else "1" * 64),
        ("an unknown id", "no_such_key_id", keys["analyst_secret"]),
    ]
    for what, key_id, secret in attempts:
        response = http(base, LOGIN, "POST", {"key_id": key_id, "secret": secret}, headers=own_origin)
        label = f"POST {LOGIN} with {what}"
        check(response.status == 401, f"{label}: 401 (got {response.status})")
        check('class="error"' in response.body, f"{label}: an error paragraph")
        check(not any(value in response.body for value in everything + [key_id, secret]), f"{label}: no key id or secret in the body")
        check(not sets_session(response), f"{label}: no session cookie")
        check_security_headers(response, label)

    foreign = http(base, LOGIN, "POST", {"key_id": keys["analyst_id"], "secret": keys["analyst_secret"]}, headers={"Origin": "http://evil.example"})
    check(foreign.status == 403, f"POST {LOGIN} from Origin http://evil.example with the right credentials: 403 (got {foreign.status})")
    check(not sets_session(foreign), "the foreign-origin login sets no session cookie")
    check(not any(value in foreign.body for value in everything), "the foreign-origin refusal echoes no key id or secret")
    check_security_headers(foreign, "the foreign-origin refusal")

    # The right credentials from the server's own origin: 303 to the index, a strict HttpOnly cookie.
    good = http(base, LOGIN, "POST", {"key_id": keys["analyst_id"], "secret": keys["analyst_secret"]}, headers=own_origin)
    check(good.status == 303 and good.location_path == "/dashboards/", f"POST {LOGIN} with the analyst key: 303 to /dashboards/ (got {good.status})")
    check_security_headers(good, f"POST {LOGIN} with the analyst key")
    cookies = [c for c in good.header_all("Set-Cookie") if c.startswith("handz_session=")]
    check(len(cookies) == 1, "the analyst login sets handz_session once")
    if cookies:
        attributes = [part.strip().lower() for part in cookies[0].split(";")[1:]]
        check("path=/dashboards" in attributes, "handz_session: Path=/dashboards")
        check("httponly" in attributes, "handz_session: HttpOnly")
        check("samesite=strict" in attributes, "handz_session: SameSite=Strict")
        check(not any(value in cookies[0] for value in everything), "handz_session: holds no key id or secret")
        session = cookies[0].split(";")[0]
        index = http(base, "/dashboards/", cookie=session)
        check(index.status == 200 and index.body.count('class="dashboard-link"') == len(DASHBOARDS),
              f"GET /dashboards/ with that session: 200 and {len(DASHBOARDS)} links (got {index.status})")
        check_security_headers(index, "GET /dashboards/ with a session")
        bye = http(base, "/dashboards/logout", "POST", {}, headers=own_origin, cookie=session)
        check(bye.status < 400, f"POST /dashboards/logout: not an error (got {bye.status})")
        check_redirects_to_login(http(base, "/dashboards/", cookie=session), "GET /dashboards/ with the session logged out over HTTP")


def step_login(browser, keys):
    print("== 2. login in the browser; the index")
    browser.get(LOGIN)
    browser.shot("login")
    key_id, secret = browser.one("#key_id", "login form"), browser.one("#secret", "login form")
    button = browser.one("#login-submit", "login form")
    if None in (key_id, secret, button):
        return False
    check(secret.get_attribute("type") == "password", "#secret is a password input")
    key_id.send_keys(keys["analyst_id"])
    secret.send_keys(keys["analyst_secret"])
    browser.submit_with(button, "login")
    if not check(browser.path == "/dashboards/", "login lands on /dashboards/"):
        browser.shot("login-failed")
        return False
    check(browser.session_cookie() is not None, "the browser holds handz_session")
    links = browser.find("a.dashboard-link")
    check(len(links) == len(DASHBOARDS), f"the index has {len(DASHBOARDS)} a.dashboard-link (got {len(links)})")
    ids = sorted(urllib.parse.urlparse(link.get_attribute("href")).path.rsplit("/", 1)[-1] for link in links)
    check(ids == sorted(DASHBOARDS), "the index links the six dashboards: " + ", ".join(ids))
    browser.shot("index")
    return True


def step_dashboards(browser):
    print("== 3. every dashboard renders")
    browser.get("/dashboards/")
    hrefs = {urllib.parse.urlparse(a.get_attribute("href")).path.rsplit("/", 1)[-1]: a.get_attribute("href") for a in browser.find("a.dashboard-link")}
    for dashboard in DASHBOARDS:
        if dashboard not in hrefs:
            check(False, f"{dashboard}: linked from the index")
            continue
        browser.driver.get(hrefs[dashboard])
        browser.loaded()
        browser.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "section.panel"), f"{dashboard}: panels appear")
        panels = len(browser.find("section.panel"))
        check(browser.path == f"/dashboards/d/{dashboard}", f"{dashboard}: opened")
        check(panels > 0, f"{dashboard}: {panels} section.panel")
        check(len(browser.find(".error")) == 0, f"{dashboard}: no .error")
        check_step_labels(browser, dashboard)
        browser.shot(f"dashboard-{dashboard}")


# Issue 37 §6: the funnel step labels as Chromium lays them out (getBBox, the rendered font), each
# pair of neighbours apart. Returns [labels measured, [charts where two overlap]].
STEP_LABEL_OVERLAPS = """
const overlapping = [];
let measured = 0;
for (const svg of document.querySelectorAll('svg.chart')) {
  const boxes = [...svg.querySelectorAll('text.step-label')].map(t => t.getBBox());
  measured += boxes.length;
  for (let i = 1; i < boxes.length; i++) {
    if (boxes[i].x < boxes[i - 1].x + boxes[i - 1].width) { overlapping.push(svg.getAttribute('aria-labelledby')); break; }
  }
}
return [measured, overlapping];
"""


def check_step_labels(browser, what):
    measured, overlapping = browser.driver.execute_script(STEP_LABEL_OVERLAPS)
    if measured:
        check(not overlapping, f"{what}: {measured} funnel step labels, none overlapping its neighbour{' (' + ', '.join(overlapping) + ')' if overlapping else ''}")


def apply_controls(browser, what, start=None, end=None, compare=None, breakdown=None, range_value=None, clean=True):
    if range_value or start:
        browser.select("#range", range_value or "custom", what)
    if start:
        browser.set_value("#from", start.isoformat())
        browser.set_value("#to", end.isoformat())
    if compare is not None:
        browser.tick("#compare", compare)
    if breakdown is not None:
        browser.select("#breakdown", breakdown, what)
    button = browser.one("#controls #apply, #apply", what)
    if button is not None:
        browser.submit_with(button, what)
    if clean:
        check(len(browser.find(".error")) == 0, f"{what}: no .error")


def check_title_range(browser, start, end, what):
    expected = f"{start.isoformat()} – {end.isoformat()}"
    check(expected in browser.driver.title, f"{what}: the title shows {expected}")


def step_range(browser, opts, start, end):
    print("== 4. activation_onboarding over a custom range against the CLI")
    browser.get("/dashboards/d/activation_onboarding")
    what = f"custom range {start}..{end}"
    apply_controls(browser, what, start, end, compare=False)
    query = browser.query
    check(query.get("range") == ["custom"] and query.get("from") == [start.isoformat()] and query.get("to") == [end.isoformat()],
          f"{what}: the URL carries range=custom, from and to")
    check_title_range(browser, start, end, what)
    table = funnel_table(browser, "F0", what)
    if table is not None:
        compare_rows(table_rows(table, "actors"), funnel_rows(cli_funnel(opts, start, end + timedelta(days=1))), f"{what}: F0")
    rows = browser.find('tr[data-kpi="activation_rate_7d"]')
    check(len(rows) >= 1, f"{what}: the activation_rate_7d row is on the page")
    expected = cli_kpi(opts, "activation_rate_7d", start, end + timedelta(days=1))
    for row in rows:
        for cell in ["numerator", "denominator"]:
            found = row.find_elements(By.CSS_SELECTOR, f"td.{cell}")
            try:
                shown = number(text_of(found[0])) if found else "missing"
            except ValueError:
                shown = "unreadable"
            check(shown == expected[cell], f"{what}: activation_rate_7d {cell} page {shown} = CLI {expected[cell]}")
    browser.shot("range-custom")


def step_compare(browser, opts, start, end, label):
    print(f"== 5. comparison with the previous period ({label})")
    browser.get("/dashboards/d/activation_onboarding")
    what = f"comparison {start}..{end}"
    apply_controls(browser, what, start, end, compare=True)
    check(browser.query.get("compare") == ["previous"], f"{what}: the URL carries compare=previous")
    check_title_range(browser, start, end, what)
    table = funnel_table(browser, "F0", what)
    if table is not None:
        check(len(table.find_elements(By.CSS_SELECTOR, "td.previous")) > 0, f"{what}: td.previous cells in F0")
        check(len(table.find_elements(By.CSS_SELECTOR, "td.delta")) > 0, f"{what}: td.delta cells in F0")
        days = (end - start).days + 1
        previous = cli_funnel(opts, start - timedelta(days=days), start)
        compare_rows(table_rows(table, "actors"), funnel_rows(cli_funnel(opts, start, end + timedelta(days=1))), f"{what}: F0 current")
        # A period with no data at all may show – for its counts: read as 0.
        compare_rows(table_rows(table, "previous"), funnel_rows(previous),
                     f"{what}: F0 previous ({start - timedelta(days=days)}..{start - timedelta(days=1)})", none_is_zero=True)
    browser.shot(f"compare-{label}")


def step_breakdown(browser, opts, start, end):
    print("== 6. F0 broken down by start_type")
    browser.get("/dashboards/d/activation_onboarding")
    what = "breakdown start_type"
    # Only F0's panel must be free of errors: F1 on the same page has no start_type on its entry event.
    apply_controls(browser, what, start, end, compare=False, breakdown="start_type", clean=False)
    f0_errors = browser.driver.find_elements(By.XPATH, '//table[@data-funnel="F0"]/ancestor::section[contains(concat(" ", normalize-space(@class), " "), " panel ")]//*[contains(concat(" ", normalize-space(@class), " "), " error ")]')
    check(len(f0_errors) == 0, f"{what}: no .error in F0's panel")
    check(browser.query.get("breakdown") == ["start_type"], f"{what}: the URL carries breakdown=start_type")
    report = cli_funnel(opts, start, end + timedelta(days=1), breakdown="start_type")
    expected = {(NOT_SET if bucket["value"] is None else str(bucket["value"])): funnel_rows(bucket) for bucket in report.get("breakdown", [])}
    tables = {t.get_attribute("data-breakdown"): t for t in browser.find('table.data[data-funnel="F0"][data-breakdown]')}
    check(len(expected) > 0, f"{what}: the CLI has {len(expected)} buckets")
    check(sorted(tables) == sorted(expected), f"{what}: the page has the CLI's buckets ({len(tables)} on the page, {len(expected)} from the CLI)")
    # Bucket values are named by their position only (never printed).
    for number_, value in enumerate(sorted(expected), 1):
        if value in tables:
            compare_rows(table_rows(tables[value], "actors"), expected[value], f"{what}: bucket #{number_}")
    # Issue 37 §6: the breakdown drawn in a chart, one bar per bucket at each row of F0's table.
    rows = len(next(iter(expected.values()))) if expected else 0
    bars = browser.driver.execute_script(
        "return [...document.querySelectorAll('svg.chart rect > title')].filter(t => t.textContent.includes(' · start_type = ')).length")
    check(bars == rows * len(expected), f"{what}: the chart draws {bars} bars, one per bucket at each of {rows} rows ({rows * len(expected)})")
    check_step_labels(browser, what)
    browser.shot("breakdown-start_type")


def run_explorer(browser, opts, start, end, steps, what, url_check):
    """Sets the explorer's custom range, runs it, and checks the URL and the table against
    `funnel --steps` over the same days (the page's `to` is inclusive, the CLI's exclusive)."""
    run_explorer_form(browser, start, end, what)
    check(browser.query.get("steps") == [steps], f"{what}: {url_check} ({steps})")
    table = funnel_table(browser, "adhoc", what)
    if table is not None:
        compare_rows(table_rows(table, "actors"), funnel_rows(cli_funnel(opts, start, end + timedelta(days=1), steps=steps)), what)


def step_explorer(browser, opts, start, end):
    print("== 7. the funnel explorer")
    f0 = cli_funnel(opts, start, end + timedelta(days=1))
    events = [step["events"][0] for step in f0["steps"][:3]]
    browser.get("/dashboards/explore")
    browser.shot("explorer")
    what = "explorer, three steps from the selects"
    select = browser.one("select#step-1", what)
    if select is not None:
        offered = {o.get_attribute("value") for o in Select(select).options}
        check(Select(select).options[0].get_attribute("value") == "", f"{what}: the first option is unused (\"\")")
        check(all(event in offered for event in events), f"{what}: the selects offer F0's first three events")
    check(len(browser.find('#explorer select[name="step"]')) == 6, f"{what}: six step selects")
    for index, event in enumerate(events, 1):
        browser.select(f"#step-{index}", event, what)
    run_explorer(browser, opts, start, end, ",".join(events), what, "the URL carries steps= with the text form")
    browser.shot("explorer-selects")

    # The text form, alternatives included (F0's step with two events, when it has one).
    alternatives = next((step["events"] for step in f0["steps"] if len(step["events"]) > 1), None)
    text = ",".join([events[0], events[1]] + (["|".join(alternatives)] if alternatives else []))
    what = "explorer, steps typed as text"
    browser.get("/dashboards/explore")
    browser.set_value("#steps", text)
    run_explorer(browser, opts, start, end, text, what, "the URL carries steps= as typed")
    browser.shot("explorer-text")


def step_funnel_modes(browser, opts, start, end):
    print("== 7b. the explorer's funnel modes: strict order, an exclusion, conversion over time")
    f0 = cli_funnel(opts, start, end + timedelta(days=1))
    steps = ",".join(step["events"][0] for step in f0["steps"][:3])
    base = ["funnel", "--steps", steps, "--db", opts.db, "--from", start.isoformat(), "--to", (end + timedelta(days=1)).isoformat(), "--format", "json"]

    for what, set_mode, parameter, value, arguments in [
        ("explorer, an exclusion between steps 2 and 3", lambda w: browser.set_value("#exclude-1", "screen_viewed@2-3"),
         "exclude", "screen_viewed@2-3", ["--exclude", "screen_viewed@2-3"]),
        ("explorer, steps back to back", lambda w: browser.select("#order", "strict", w), "order", "strict", ["--order", "strict"]),
    ]:
        browser.get("/dashboards/explore")
        browser.set_value("#steps", steps)
        set_mode(what)
        run_explorer_form(browser, start, end, what)
        check(browser.query.get(parameter) == [value], f"{what}: the URL carries {parameter}={value}")
        table = funnel_table(browser, "adhoc", what)
        if table is not None:
            compare_rows(table_rows(table, "actors"), funnel_rows(cli(opts.binary, base + arguments)), what)

    what = "explorer, conversion over time"
    browser.get("/dashboards/explore")
    browser.set_value("#steps", steps)
    browser.tick("#by", True)
    run_explorer_form(browser, start, end, what)
    check(browser.query.get("by") == ["day"], f"{what}: the URL carries by=day")
    report = cli(opts.binary, base + ["--by-day"])
    rows = browser.find("#p-over-time-table tbody tr")
    check(len(rows) == len(report["by_entry_day"]), f"{what}: {len(rows)} days on the page = CLI {len(report['by_entry_day'])}")
    for row, day in zip(rows, report["by_entry_day"]):
        cells = [text_of(cell) for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
        check(cells[0] == day["day"] and number(cells[1]) == day["entered"] and number(cells[2]) == day["completed"],
              f"{what}: day {day['day']}: page {cells[:3]} = CLI")
    check(len(browser.find("#p-over-time-chart polyline")) >= 1, f"{what}: the chart draws its line")
    browser.shot("explorer-conversion-over-time", guide=True)


def run_explorer_form(browser, start, end, what):
    """The explorer's custom range through the form, then its Run button; no .error after."""
    draw_over(browser, start, end, what, button="#run")
    check(len(browser.find(".error")) == 0, f"{what}: no .error")


def cli_trend(opts, start, end_exclusive, series, measure, interval, breakdown=None):
    args = ["trend", "--db", opts.db, "--series", series, "--measure", measure, "--interval", interval,
            "--from", start.isoformat(), "--to", end_exclusive.isoformat(), "--format", "json"]
    return cli(opts.binary, args + (["--breakdown", breakdown] if breakdown else []))


def draw_over(browser, start, end, what, button="#draw"):
    """A page's custom range set through the form, then its submit button (an insight's Draw)."""
    browser.select("#range", "custom", what)
    browser.set_value("#from", start.isoformat())
    browser.set_value("#to", end.isoformat())
    submit = browser.one(button, what)
    if submit is not None:
        browser.submit_with(submit, what)


def check_trend(browser, opts, start, end, series, measure, interval, what, breakdown=None):
    """The page's table of periods and its totals against `trend` over the same days (the page's
    `to` is inclusive, the CLI's exclusive)."""
    query = browser.query
    check(query.get("series") == [series], f"{what}: the URL carries series= ({series})")
    check(len(browser.find(".error")) == 0, f"{what}: no .error")
    report = cli_trend(opts, start, end + timedelta(days=1), series, measure, interval, breakdown)
    rows = browser.find("#p-trend-table tbody tr")
    check(len(rows) == len(report["periods"]), f"{what}: {len(rows)} periods on the page = CLI {len(report['periods'])}")
    for index, row in enumerate(rows):
        cells = [number(text_of(cell)) for cell in row.find_elements(By.CSS_SELECTOR, "td")]
        expected = [line["counts"][index] for line in report["lines"]]
        check(cells == expected, f"{what}: period {index + 1}: page {cells} = CLI {expected}")
    totals = [number(text_of(row.find_elements(By.CSS_SELECTOR, "td")[0])) for row in browser.find("#p-trend-totals tbody tr")]
    check(totals == [line["total"] for line in report["lines"]], f"{what}: totals page {totals} = CLI {[line['total'] for line in report['lines']]}")
    check(len(browser.find("#p-trend-chart polyline")) >= 1, f"{what}: the chart draws its lines")


def step_trends(browser, opts, start, end):
    print("== 9. trends")
    browser.get("/dashboards/trends")
    browser.shot("trends")
    what = "trends, two series from the selects, installs per week"
    for index, event in enumerate(["app_open", "screen_viewed"], 1):
        browser.select(f"#event-{index}", event, what)
    browser.select("#measure", "installs", what)
    browser.select("#interval", "week", what)
    draw_over(browser, start, end, what)
    check_trend(browser, opts, start, end, "app_open,screen_viewed", "installs", "week", what)
    browser.shot("trends-installs-per-week", guide=True)

    what = "trends, a filtered series typed as text, users per day by launch_source"
    series = "app_open[launch_source=push|deep_link|direct]"
    browser.get("/dashboards/trends")
    browser.set_value("#series", series)
    browser.select("#measure", "users", what)
    browser.select("#breakdown", "launch_source", what)
    draw_over(browser, start, end, what)
    check_trend(browser, opts, start, end, series, "users", "day", what, breakdown="launch_source")
    browser.shot("trends-users-by-launch-source", guide=True)


def step_retention(browser, opts, start, end):
    print("== 10. retention")
    what = "retention, daily cohorts of installs returning on any event"
    browser.get("/dashboards/retention")
    browser.select("#interval", "day", what)
    browser.set_value("#returning", "any")
    draw_over(browser, start, end, what)
    check(browser.query.get("returning") == ["any"] and browser.query.get("interval") == ["day"], f"{what}: the URL carries the controls")
    check(len(browser.find(".error")) == 0, f"{what}: no .error")
    report = cli(opts.binary, ["retention", "--db", opts.db, "--interval", "day", "--returning", "any", "--from", start.isoformat(),
                               "--to", (end + timedelta(days=1)).isoformat(), "--format", "json"])
    rows = browser.find("#p-retention-counts tbody tr")
    cohorts = report["cohorts"] + [report["overall"]]
    check(len(rows) == len(cohorts), f"{what}: {len(rows)} rows = CLI's {len(cohorts)} cohorts and the curve")
    for row, cohort in zip(rows, cohorts):
        cells = [text_of(cell) for cell in row.find_elements(By.CSS_SELECTOR, "td")]
        expected = [f"{cohort['actors']:,}"] + [f"{r:,} / {e:,}" for r, e in zip(cohort["returned"], cohort["eligible"])]
        check(cells == expected, f"{what}: cohort {text_of(row.find_elements(By.CSS_SELECTOR, 'th')[0])}: page = CLI")
    check(len(browser.find("#p-retention-chart polyline")) >= 1, f"{what}: the curve is drawn")
    browser.shot("retention-daily-any-event", guide=True)


def step_paths(browser, opts, start, end):
    print("== 11. paths")
    what = "paths, three steps after screen_viewed"
    browser.get("/dashboards/paths")
    browser.set_value("#anchor", "screen_viewed")
    browser.select("#direction", "next", what)
    browser.select("#depth", "3", what)
    draw_over(browser, start, end, what)
    check(browser.query.get("anchor") == ["screen_viewed"], f"{what}: the URL carries the anchor")
    check(len(browser.find(".error")) == 0, f"{what}: no .error")
    report = cli(opts.binary, ["paths", "--db", opts.db, "--anchor", "screen_viewed", "--depth", "3", "--from", start.isoformat(),
                               "--to", (end + timedelta(days=1)).isoformat(), "--format", "json"])
    rows = browser.find("#p-paths-table tbody tr")
    check(len(rows) == min(len(report["paths"]), 50), f"{what}: {len(rows)} paths on the page = CLI {min(len(report['paths']), 50)}")
    for row, path in zip(rows, report["paths"]):
        cells = [text_of(cell) for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
        steps = [step if step is not None else "(session ended)" for step in path["steps"]]
        check(cells[:3] == steps and number(cells[3]) == path["sessions"], f"{what}: a path's steps and sessions = CLI")
    check(len(browser.find("#p-paths-chart rect")) >= 2, f"{what}: the flow chart draws its boxes")
    browser.shot("paths-after-screen-viewed", guide=True)


def step_refusals(browser, opts, start, end):
    print("== 8. an unknown event and crafted parameters: 400, never reflected")
    unknown = "no_such_event"
    path = "/dashboards/explore?" + urllib.parse.urlencode({"steps": f"app_open,{unknown}", "range": "custom", "from": start.isoformat(), "to": end.isoformat()})
    browser.get(path)
    check(len(browser.find(".error")) > 0, "explorer with an unknown event: the page shows .error")
    check(all(unknown not in text_of(e) for e in browser.find(".error")), "explorer with an unknown event: the error does not repeat it")
    browser.shot("explorer-unknown-event")
    session = browser.session_cookie()
    if not check(session is not None, "the browser's session cookie is readable"):
        return
    response = http(opts.base, path, cookie=session)
    check(response.status == 400, f"GET explorer with an unknown event: 400 (got {response.status})")
    check('class="error"' in response.body, "GET explorer with an unknown event: an error paragraph")
    check(unknown not in response.body, "GET explorer with an unknown event: the body does not contain it")
    check_security_headers(response, "GET explorer with an unknown event")

    dashboard = "/dashboards/d/activation_onboarding?"
    crafted = [  # (page, parameters, the crafted one, the text that must not come back)
        (dashboard, {"breakdown": "<script>x</script>"}, "breakdown", "<script>x</script>"),
        (dashboard, {"range": "bogus"}, "range", "bogus"),
        (dashboard, {"range": "custom", "from": "2026-13-45", "to": end.isoformat()}, "from", "2026-13-45"),
        (dashboard, {"range": "custom", "from": start.isoformat(), "to": "2026-02-30"}, "to", "2026-02-30"),
        (dashboard, {"actor": "admin"}, "actor", "actor=admin"),
        (dashboard, {"window": "<b>7d</b>"}, "window", "<b>7d</b>"),
        (dashboard, {"compare": "'\"><svg onload=x>"}, "compare", "<svg onload=x>"),
        ("/dashboards/explore?", {"steps": "app_open,<img src=x>"}, "steps", "<img src=x>"),
        ("/dashboards/explore?", {"steps": "app_open,onboarding_viewed", "breakdown": "\"><i>q</i>"}, "breakdown", "<i>q</i>"),
    ]
    for prefix, params, name, needle in crafted:
        label = f"GET {prefix.rstrip('?')} with a crafted {name}"
        response = http(opts.base, prefix + urllib.parse.urlencode(params), cookie=session)
        check(response.status == 400, f"{label}: 400 (got {response.status})")
        check(not reflected(response.body, needle), f"{label}: the crafted text is not in the body")
        check_security_headers(response, label)
    for unknown_id in ["no_such_dashboard_q7", "..%2F..%2Fetc%2Fpasswd"]:
        response = http(opts.base, f"/dashboards/d/{unknown_id}", cookie=session)
        check(response.status in (400, 404), f"GET an unknown dashboard id: 400 or 404 (got {response.status})")
        check(urllib.parse.unquote(unknown_id) not in response.body and unknown_id not in response.body, "GET an unknown dashboard id: not reflected")
        check("root:" not in response.body, "GET an unknown dashboard id: no file served")
        check_security_headers(response, "GET an unknown dashboard id")
    browser.shot("after-refusals")


def step_logout(browser, opts):
    print("== 12. logout")
    browser.get("/dashboards/")
    old_session = browser.session_cookie()
    buttons = browser.find('form[action="/dashboards/logout"] button, form[action="/dashboards/logout"] input[type="submit"]')
    check(len(buttons) > 0, "the index has a logout button (form action=/dashboards/logout)")
    if buttons:
        browser.submit_with(buttons[0], "logout")
    else:  # a POST from the page the way a form would send it
        old = browser.driver.find_element(By.TAG_NAME, "html")
        browser.driver.execute_script(
            "const f = document.createElement('form'); f.method = 'post'; f.action = '/dashboards/logout';"
            "document.body.appendChild(f); f.submit();")
        if browser.wait(page_replaced(old), "logout: a new page") is not None:
            browser.loaded()
    browser.shot("logout")
    browser.get("/dashboards/")
    check(browser.path == LOGIN, "after logout /dashboards/ leads to the login page")
    check(len(browser.find("a.dashboard-link")) == 0, "after logout: no dashboard links")
    browser.shot("after-logout")
    if old_session:
        check_redirects_to_login(http(opts.base, "/dashboards/", cookie=old_session), "GET /dashboards/ with the logged-out session cookie")
        check_redirects_to_login(http(opts.base, "/dashboards/d/activation_onboarding", cookie=old_session), "GET a dashboard with the logged-out session cookie")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, help="http://127.0.0.1:PORT")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--guide-screenshots", help="a directory for the screenshots the guides show (scripts/check-served-dashboards.sh)")
    parser.add_argument("--from", dest="start", required=True, type=date.fromisoformat)
    parser.add_argument("--to", dest="end", required=True, type=date.fromisoformat, help="the last day, inclusive")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    for role in ["analyst", "ingest", "admin"]:
        parser.add_argument(f"--{role}-id", required=True)
        parser.add_argument(f"--{role}-secret", help=f"better: HANDZ_{role.upper()}_SECRET in the environment")
    opts = parser.parse_args()
    opts.base = opts.base.rstrip("/")
    keys = {}
    for role in ["analyst", "ingest", "admin"]:
        keys[f"{role}_id"] = getattr(opts, f"{role}_id")
        keys[f"{role}_secret"] = getattr(opts, f"{role}_secret") or os.environ.get(f"HANDZ_{role.upper()}_SECRET", "")
        if not keys[f"{role}_secret"]:
            parser.error(f"no secret for the {role} key (--{role}-secret or HANDZ_{role.upper()}_SECRET)")
    if opts.end < opts.start:
        parser.error("--to is before --from")
    os.makedirs(opts.screenshots, exist_ok=True)
    started = time.monotonic()

    def guarded(name, function, *args):
        # A step starts by loading its page, so it can run again. Chromium's DevTools side
        # sometimes loses an element while a page replaces another ("Node with given id does not
        # belong to the document"): that driver error gets one more try of the whole step,
        # printed with where it happened; any other exception, or a second one, is a failure.
        for attempt in (1, 2):
            try:
                return function(*args)
            except Exception as error:  # noqa: BLE001 — one step's crash is a failure, the others still run
                message = str(error).splitlines()[0][:200] if str(error) else ""
                frames = " < ".join(f"{frame.name}:{frame.lineno}" for frame in reversed(traceback.extract_tb(error.__traceback__)))
                driver_lost_node = isinstance(error, StaleElementReferenceException) or (
                    isinstance(error, WebDriverException) and "does not belong to the document" in message)
                if attempt == 1 and driver_lost_node:
                    print(f"step {name}: {type(error).__name__} at {frames}; running the step again")
                    continue
                check(False, f"step {name} raised {type(error).__name__}: {message} (at {frames})")
                return None

    guarded("security", step_security, opts, keys)
    browser = None
    try:
        browser = Browser(opts)
        if guarded("login", step_login, browser, keys):
            guarded("dashboards", step_dashboards, browser)
            guarded("range", step_range, browser, opts, opts.start, opts.end)
            guarded("compare", step_compare, browser, opts, opts.start, opts.end, "range")
            days = (opts.end - opts.start).days + 1
            if days >= 2:  # the simulated data starts at --from: the second half compares with data on both sides
                guarded("compare", step_compare, browser, opts, opts.start + timedelta(days=days // 2), opts.end, "second-half")
            guarded("breakdown", step_breakdown, browser, opts, opts.start, opts.end)
            guarded("explorer", step_explorer, browser, opts, opts.start, opts.end)
            guarded("funnel modes", step_funnel_modes, browser, opts, opts.start, opts.end)
            guarded("trends", step_trends, browser, opts, opts.start, opts.end)
            guarded("retention", step_retention, browser, opts, opts.start, opts.end)
            guarded("paths", step_paths, browser, opts, opts.start, opts.end)
            guarded("refusals", step_refusals, browser, opts, opts.start, opts.end)
            guarded("logout", step_logout, browser, opts)
    except Exception as error:  # noqa: BLE001
        check(False, f"the browser: {type(error).__name__}: {(str(error).splitlines() or [''])[0][:200]}")
    finally:
        if browser is not None:
            if failures:
                try:
                    browser.shot("at-exit")
                except Exception:  # noqa: BLE001
                    pass
            browser.quit()

    print(f"served dashboards: {time.monotonic() - started:.1f} s, screenshots in {opts.screenshots}")
    if failures:
        print(f"{len(failures)} failure(s):")
        for failure in failures:
            print(f"  - {failure}")
        sys.exit(1)
    print("served dashboards: all checks passed")


if __name__ == "__main__":
    main()
