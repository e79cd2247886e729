import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzCatalogReleases
import HandzColumnStore
import HandzDashboards
import HandzIngest
import HandzQuery
import HandzSQLite
import HandzStore
import Logging
import NIOCore

/// The dashboards `serve` hosts at `/dashboards/` (issue 16), on the embedded store it ingests
/// into: sign-in with an analyst key, then the CH33 §7 dashboards and the funnel explorer, each
/// rendered on request by the report's renderer from ``DashboardRunner`` — the same panel →
/// query path as `dashboard render`, `sql panel` and the Grafana export (``PanelQuery``).
///
/// HTTP-free: each handler takes what it needs from the request and returns a ``SiteAnswer``;
/// ``DashboardRoutes`` is the Hummingbird glue. Pages are read-only: the only write a render
/// causes is the column store's seal of the log's unsealed tail (``LiveColumnStore``), which the
/// server runs before it draws; the queries themselves open the files read-only.
final class DashboardSite: Sendable {
    let databasePath: String
    let catalog: Catalog
    /// Every kept catalog version, for the notes under funnels whose range spans versions that
    /// could not send some of their events.
    let availability: CatalogAvailability
    let dashboards: [DashboardDefinition]
    let breakdowns: [String]
    let sessions: AnalystSessions
    let cache: PageCache
    /// ``catalogVersions(_:_:)`` per range and store version.
    let versionsByRange = Locked<[String: [String]]>([:])
    let gate = RenderGate(maximumWaiting: 8)
    /// Identical requests for a page being drawn, merged before the gate.
    let flights = PageFlights()
    let version: StoreVersion
    let workers: Int
    let logger: Logger
    /// The column engine (issue 33), sealed on demand before a page is drawn; nil: SQLite only.
    let columns: LiveColumnStore?

    init(databasePath: String, catalog: Catalog, releases: [Catalog] = [], dashboards: [DashboardDefinition], keys: KeyRing, workers: Int = 2,
         cacheBudget: Int = PageCache.defaultBudget, columns: LiveColumnStore? = nil, logger: Logger = Logger(label: "handz.dashboards")) throws {
        self.logger = logger
        self.columns = columns
        self.cache = PageCache(budget: cacheBudget)
        self.availability = CatalogAvailability(releases + [catalog])
        self.databasePath = databasePath
        self.catalog = catalog
        self.dashboards = dashboards
        self.breakdowns = SiteControls.breakdownOptions(catalog)
        self.sessions = AnalystSessions(keys: keys)
        var appended: (@Sendable () -> Int)?
        if let segments = columns?.segments { appended = { segments.writtenRequests } }
        self.version = try StoreVersion(path: databasePath, appended: appended)
        self.workers = workers
    }

    /// One answer to a request: a status, extra headers (the security headers are added by the
    /// routes) and an HTML body drawn by ``SitePages``. The body is the bytes the response sends:
    /// a cached page's answer shares the cache's storage (``PageCache``).
    struct SiteAnswer: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: ByteBuffer

        init(status: Int, headers: [(String, String)] = [], html: String = "") {
            self.init(status: status, headers: headers, body: ByteBuffer(string: html))
        }

        init(status: Int, headers: [(String, String)] = [], body: ByteBuffer) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        static func redirect(_ location: String, headers: [(String, String)] = []) -> SiteAnswer {
            SiteAnswer(status: 303, headers: [("Location", location)] + headers)
        }

        /// The same answer with its `X-Handz-Cache` header saying `value`.
        func cache(_ value: String) -> SiteAnswer {
            var answer = self
            answer.headers = headers.filter { $0.0 != "X-Handz-Cache" } + [("X-Handz-Cache", value)]
            return answer
        }
    }

    static let signInPage = SitePages.root + "/login"

    // MARK: - Sign-in

    /// `POST /dashboards/login`. `origin` and `fetchSite` are the request's `Origin` and
    /// `Sec-Fetch-Site` headers; `host` its `Host`: a cross-site form post is refused (CSRF).
    func signIn(body: [UInt8], origin: String?, fetchSite: String?, host: String?, secure: Bool) -> SiteAnswer {
        guard Self.sameOrigin(origin: origin, fetchSite: fetchSite, host: host) else {
            return SiteAnswer(status: 403, html: SitePages.error(title: "Refused", message: "A sign-in must come from this server's own page.", signedIn: false))
        }
        let fields = String(validating: body, as: UTF8.self).flatMap(FormFields.pairs) ?? []
        let keyID = fields.first { $0.name == "key_id" }?.value ?? ""
        let secret = fields.first { $0.name == "secret" }?.value ?? ""
        guard let token = sessions.signIn(keyID: keyID, secretHex: secret) else {
            // Past the minute's allowance of failures, 429: it only spares the server's time (a
            // 256-bit secret is not guessed), and the right credentials still sign in.
            guard sessions.noteFailure() else {
                return SiteAnswer(status: 429, headers: [("Retry-After", "60")], html: SitePages.login(error: "Too many failed sign-ins; wait a minute."))
            }
            return SiteAnswer(status: 401, html: SitePages.login(error: "That is not an active analyst key and its secret."))
        }
        let cookie = "\(AnalystSessions.cookieName)=\(token); Path=\(SitePages.root); HttpOnly; SameSite=Strict; Max-Age=\(Int(AnalystSessions.lifetimeSeconds))"
            + (secure ? "; Secure" : "")
        return .redirect(SitePages.root + "/", headers: [("Set-Cookie", cookie)])
    }

    /// `POST /dashboards/logout`.
    func signOut(cookie: String?, origin: String?, fetchSite: String?, host: String?) -> SiteAnswer {
        guard Self.sameOrigin(origin: origin, fetchSite: fetchSite, host: host) else {
            return SiteAnswer(status: 403, html: SitePages.error(title: "Refused", message: "Signing out must come from this server's own page.", signedIn: false))
        }
        // Every token the request carries, one or several (``AnalystSessions/SessionCookie``).
        switch AnalystSessions.sessionCookie(cookie) {
        case .none: break
        case .token(let token): sessions.end(token: token)
        case .conflicting(let tokens): tokens.forEach(sessions.end(token:))
        }
        return .redirect(Self.signInPage, headers: [("Set-Cookie", "\(AnalystSessions.cookieName)=; Path=\(SitePages.root); HttpOnly; SameSite=Strict; Max-Age=0")])
    }

    /// A request's `Origin` (when sent) must be this host's; a browser's `Sec-Fetch-Site` (when
    /// sent) must not say cross-site. SameSite=Strict already keeps the cookie off cross-site
    /// requests; this refuses a cross-site sign-in (login CSRF) too.
    static func sameOrigin(origin: String?, fetchSite: String?, host: String?) -> Bool {
        if let fetchSite, fetchSite == "cross-site" || fetchSite == "same-site" { return false }
        guard let origin else { return true }
        guard let host, !host.isEmpty else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    // MARK: - Pages

    /// Which page a GET asks for.
    enum Route: Sendable {
        case index
        case dashboard(String)
        case explorer
        case trends
        case retention
        case paths
    }

    /// A GET of a page: the sign-in check, then the controls, then the page (cached when its
    /// range has ended). `refresh`: the request asked not to be answered from the cache (a
    /// browser's hard reload sends `Cache-Control: no-cache`, ``DashboardRoutes/asksForRefresh(_:)``):
    /// the page is drawn again and replaces the cached one.
    func page(_ route: Route, query: String, cookie: String?, refresh: Bool = false) async -> SiteAnswer {
        let token: String
        switch AnalystSessions.sessionCookie(cookie) {
        case .none: return .redirect(Self.signInPage)
        case .token(let one): token = one
        case .conflicting:
            return SiteAnswer(status: 400, html: SitePages.error(title: "Two sessions", message: Self.conflictingCookies, signedIn: false))
        }
        guard sessions.keyID(token: token) != nil else { return .redirect(Self.signInPage) }
        guard let items = FormFields.pairs(query) else { return refused(.invalid("query")) }
        let controls: SiteControls
        do {
            let page: SiteControls.Page
            switch route {
            case .explorer: page = .explorer
            case .trends: page = .trends
            case .retention: page = .retention
            case .paths: page = .paths
            case .index, .dashboard: page = .dashboard
            }
            controls = try SiteControls.parse(items, breakdowns: breakdowns, catalog: catalog, page: page)
        } catch {
            if case .explorer = route, case .funnel = error {
                return SiteAnswer(status: 400, html: SitePages.explorer(catalog: catalog, controls: SiteControls(), breakdowns: breakdowns, range: (0, 0),
                                                                      report: nil, previous: nil, refusal: error.description, provenance: nil))
            }
            if case .trends = route, case .trend = error {
                return SiteAnswer(status: 400, html: SitePages.trends(catalog: catalog, controls: SiteControls(), breakdowns: breakdowns, report: nil,
                                                                    previous: nil, refusal: error.description, provenance: nil))
            }
            if case .paths = route, case .paths = error {
                return SiteAnswer(status: 400, html: SitePages.paths(controls: SiteControls(), report: nil, refusal: error.description, provenance: nil))
            }
            if case .retention = route, case .retention = error {
                return SiteAnswer(status: 400, html: SitePages.retention(catalog: catalog, controls: SiteControls(), breakdowns: breakdowns, report: nil,
                                                                       previous: nil, refusal: error.description, provenance: nil))
            }
            return refused(error)
        }
        switch route {
        case .index:
            return SiteAnswer(status: 200, html: SitePages.index(dashboards, controls: controls))
        case .dashboard(let id):
            guard let dashboard = dashboards.first(where: { $0.id == id }) else {
                return SiteAnswer(status: 404, html: SitePages.error(title: "Not found", message: "There is no dashboard at this address.", signedIn: true))
            }
            return await rendered(key: "d/\(dashboard.id)", controls: controls, refresh: refresh) { range, previous in
                try self.dashboardPage(dashboard, controls: controls, range: range, previous: previous)
            }
        case .explorer:
            // Step pickers become the text form in the address, so the view can be bookmarked.
            if items.contains(where: { $0.name == "step" }) { return .redirect(SitePages.root + "/explore?" + controls.query) }
            guard controls.steps != nil else {
                return SiteAnswer(status: 200, html: SitePages.explorer(catalog: catalog, controls: controls, breakdowns: breakdowns, range: (0, 0),
                                                                      report: nil, previous: nil, refusal: nil, provenance: nil))
            }
            return await rendered(key: "explore", controls: controls, refresh: refresh) { range, previous in
                try self.explorerPage(controls: controls, range: range, previous: previous)
            }
        case .trends:
            // Event pickers become the text form in the address, so the view can be bookmarked.
            if items.contains(where: { $0.name == "event" }) { return .redirect(SitePages.root + "/trends?" + controls.query) }
            guard controls.series != nil else {
                return SiteAnswer(status: 200, html: SitePages.trends(catalog: catalog, controls: controls, breakdowns: breakdowns, report: nil,
                                                                    previous: nil, refusal: nil, provenance: nil))
            }
            return await rendered(key: "trends", controls: controls, refresh: refresh) { range, previous in
                try self.trendsPage(controls: controls, range: range, previous: previous)
            }
        case .paths:
            guard controls.anchor != nil else {
                return SiteAnswer(status: 200, html: SitePages.paths(controls: controls, report: nil, refusal: nil, provenance: nil))
            }
            return await rendered(key: "paths", controls: controls, refresh: refresh) { range, _ in
                try self.pathsPage(controls: controls, range: range)
            }
        case .retention:
            // The cohorts of the range, always drawn (the default: app_open, installs, days).
            return await rendered(key: "retention", controls: controls, refresh: refresh) { range, previous in
                try self.retentionPage(controls: controls, range: range, previous: previous)
            }
        }
    }

    static let conflictingCookies = "The browser sent more than one dashboard session cookie, so this server cannot tell which is its own: sign out, or clear this site's cookies, then sign in again."

    func refused(_ refusal: SiteRefusal) -> SiteAnswer {
        SiteAnswer(status: 400, html: SitePages.error(title: "Bad request", message: refusal.description, signedIn: true))
    }

    /// What a page needs before it is drawn: its range, the previous period, its cache key, and
    /// whether it may be cached (its range has ended).
    struct Probe {
        var range: (fromMs: Int64, toMs: Int64)
        var previous: (fromMs: Int64, toMs: Int64)?
        /// The page, its canonical controls and its resolved range.
        var cacheKey: String
        /// The store's version when the page was looked at (``StoreVersion``).
        var version: Int64
        var cacheable: Bool

        /// What identical requests share a drawing by: the page and the store version.
        var flightKey: String { "\(cacheKey)@\(version)" }
    }

    /// Reads the store's time range and the store version on a read-only
    /// connection (no write lock: it never waits for the endpoint).
    func probe(key: String, controls: SiteControls) throws -> Probe {
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let range = controls.resolvedRange(stored: try storedTimeRange(), nowMs: nowMs)
        // The version after the reads above: a commit between them gives a newer key, never an
        // older page under a newer key.
        let cacheKey = "\(key)?\(controls.query)#\(range.fromMs)-\(range.toMs)"
        // A range that has not ended can still gain events: drawn every time.
        return Probe(range: range, previous: controls.compare ? SiteControls.previousPeriod(range) : nil, cacheKey: cacheKey,
                     version: try version.current(), cacheable: range.toMs <= nowMs)
    }

    /// Serves a page from the cache without waiting (unless `refresh`); else joins a drawing of the
    /// same page under way (``PageFlights``: it reads the store as it is now, so a refresh may
    /// join it too); else draws it (``draw(key:controls:refresh:render:)``) and hands the answer
    /// to every request that joined meanwhile.
    func rendered(key: String, controls: SiteControls, refresh: Bool = false,
                  render: @escaping @Sendable ((fromMs: Int64, toMs: Int64), (fromMs: Int64, toMs: Int64)?) throws -> String) async -> SiteAnswer {
        // A reload of an unchanged store: no gate, no write lock.
        guard case .success(let probe) = await Self.offLoop({ try self.probe(key: key, controls: controls) }) else {
            return await draw(key: key, controls: controls, refresh: refresh, render: render)
        }
        if probe.cacheable, !refresh, let body = cache.page(probe.cacheKey, version: probe.version) {
            return SiteAnswer(status: 200, headers: [("X-Handz-Cache", "hit")], body: body)
        }
        if let shared = await flights.join(probe.flightKey) { return shared.status == 200 ? shared.cache("shared") : shared }
        let answer = await draw(key: key, controls: controls, refresh: refresh, render: render)
        await flights.finish(probe.flightKey, with: answer)
        return answer
    }

    /// One page at a time and off the server's event loops: draws the page (and caches it when it
    /// may; a `refresh` draws it even when a page drawn meanwhile is cached, and replaces it).
    func draw(key: String, controls: SiteControls, refresh: Bool = false,
              render: @escaping @Sendable ((fromMs: Int64, toMs: Int64), (fromMs: Int64, toMs: Int64)?) throws -> String) async -> SiteAnswer {
        guard await gate.enter() else {
            return SiteAnswer(status: 503, headers: [("Retry-After", "5")], html: SitePages.error(title: "Busy", message: "Other pages are being computed; try again in a few seconds.", signedIn: true))
        }
        let outcome: Result<SiteAnswer, Error> = await Self.offLoop { [self] in
            // The column store sealed through what the endpoint acknowledged, once for the page.
            _ = columnEngine()
            // Looked at again after the seal: reusing the first look saves a few milliseconds, but a
            // commit in between would file the page under a stale version, and the next reload
            // would miss (measured: BENCHMARKS, "Served dashboards").
            let probe = try probe(key: key, controls: controls)
            // Another request may have drawn it while this one waited at the gate.
            if probe.cacheable, !refresh, let body = cache.page(probe.cacheKey, version: probe.version) {
                return SiteAnswer(status: 200, headers: [("X-Handz-Cache", "hit")], body: body)
            }
            let body = ByteBuffer(string: try render(probe.range, probe.previous))
            if probe.cacheable { cache.store(probe.cacheKey, version: probe.version, body) }
            return SiteAnswer(status: 200, headers: [("X-Handz-Cache", probe.cacheable ? "miss" : "live")], body: body)
        }
        await gate.leave()
        switch outcome {
        case .success(let page): return page
        case .failure(let error):
            if let refusal = error as? SiteRefusal { return refused(refusal) }
            // Never the error's text: it could quote SQL or a path. The log has its type.
            logger.error("a dashboard page could not be computed", metadata: ["error_type": "\(type(of: error))"])
            return SiteAnswer(status: 500, html: SitePages.error(title: "Could not compute the page", message: "The store could not be read for this page (\(String(describing: type(of: error))))",
                                                               signedIn: true))
        }
    }

    func dashboardPage(_ dashboard: DashboardDefinition, controls: SiteControls, range: (fromMs: Int64, toMs: Int64),
                       previous: (fromMs: Int64, toMs: Int64)?) throws -> String {
        let started = ContinuousClock.now
        let engine = columnEngine()
        var data = try DashboardRunner.run([dashboard], path: databasePath, catalog: catalog, fromMs: range.fromMs, toMs: range.toMs,
                                           controls: controls.panel, workers: workers, engine: engine)[0]
        if dashboard.panels.contains(where: { $0.sources.contains { if case .funnel = $0.kind { true } else { false } } }) {
            let versions = try engine?.store.catalogVersions(fromMs: range.fromMs, toMs: range.toMs)
                ?? catalogVersions(StoreAnalysis(path: databasePath, catalog: catalog), range)
            data.addFunnelNotes { self.availability.notes(for: $0, dataVersions: versions) }
        }
        let before = try previous.map {
            try DashboardRunner.run([dashboard], path: databasePath, catalog: catalog, fromMs: $0.fromMs, toMs: $0.toMs, controls: controls.panel,
                                    workers: workers, engine: engine)[0]
        }
        return SitePages.dashboard(data, previous: before, all: dashboards, controls: controls, breakdowns: breakdowns,
                                   provenance: provenance(since: started, columns: engine != nil))
    }

    func explorerPage(controls: SiteControls, range: (fromMs: Int64, toMs: Int64), previous: (fromMs: Int64, toMs: Int64)?) throws -> String {
        let started = ContinuousClock.now
        let funnel = try controls.funnel(controls.steps ?? "", catalog: catalog)
        if let breakdown = controls.panel.breakdown {
            do {
                try FunnelSQLBuilder(catalog: catalog, dialect: .sqlite).checkBreakdown(breakdown, funnel: funnel)
            } catch {
                throw SiteRefusal.funnel("step 1's events do not carry the breakdown property")
            }
        }
        let store = try StoreAnalysis(path: databasePath, catalog: catalog)
        let query = { (from: Int64, to: Int64) in
            var query = FunnelQuery(funnel: funnel, fromMs: from, toMs: to, actor: controls.panel.actor, breakdown: controls.panel.breakdown)
            // The top values and "other", like a dashboard's funnels (issue 32 §3).
            query.breakdownLimit = BreakdownLimit.values
            query.byEntryDay = controls.byEntryDay
            return query
        }
        let engine = columnEngine()
        let run = { (query: FunnelQuery) throws -> FunnelReport in
            if let engine, case .funnel(let report)? = try engine.answer(.funnel(query)) { return report }
            return try store.funnel(query)
        }
        let report = try run(query(range.fromMs, range.toMs))
        let before = try previous.map { try run(query($0.fromMs, $0.toMs)) }
        let versions = try engine?.store.catalogVersions(fromMs: range.fromMs, toMs: range.toMs) ?? catalogVersions(store, range)
        return SitePages.explorer(catalog: catalog, controls: controls, breakdowns: breakdowns, range: range, report: report, previous: before,
                                  refusal: nil, provenance: provenance(since: started, columns: engine != nil),
                                  notes: availability.notes(for: funnel, dataVersions: versions))
    }

    /// The trends page (issue 35 §1): the trend of the controls' series over the range, and over
    /// the previous period when compared; the breakdown's top values and "(other)".
    func trendsPage(controls: SiteControls, range: (fromMs: Int64, toMs: Int64), previous: (fromMs: Int64, toMs: Int64)?) throws -> String {
        let started = ContinuousClock.now
        let series = try TrendQuery.series(controls.series ?? "", catalog: catalog)
        let query = { (from: Int64, to: Int64) in
            TrendQuery(series: series, measure: controls.measure, interval: controls.interval, fromMs: from, toMs: to,
                       breakdown: controls.panel.breakdown, breakdownLimit: BreakdownLimit.values)
        }
        do {
            try query(range.fromMs, range.toMs).validate(catalog)
        } catch {
            throw SiteRefusal.trend(error.description)
        }
        let engine = columnEngine()
        let run = { (query: TrendQuery) throws -> TrendReport in
            if let engine { return try ColumnTrend(store: engine.store, catalog: self.catalog).run(query) }
            return try StoreAnalysis(path: self.databasePath, catalog: self.catalog).trend(query)
        }
        let report = try run(query(range.fromMs, range.toMs))
        let before = try previous.map { try run(query($0.fromMs, $0.toMs)) }
        return SitePages.trends(catalog: catalog, controls: controls, breakdowns: breakdowns, report: report, previous: before, refusal: nil,
                                provenance: provenance(since: started, columns: engine != nil))
    }

    /// The paths page (issue 35 §4): the paths of the range's anchors (no comparison: a previous
    /// period's paths are another table, not a line to draw beside these).
    func pathsPage(controls: SiteControls, range: (fromMs: Int64, toMs: Int64)) throws -> String {
        let started = ContinuousClock.now
        let query = PathQuery(anchor: try PathQuery.anchor(controls.anchor ?? "", catalog: catalog), direction: controls.direction,
                              depth: controls.depth, fromMs: range.fromMs, toMs: range.toMs)
        let engine = columnEngine()
        let report = try engine.map { try ColumnPaths(store: $0.store, catalog: catalog).run(query) }
            ?? StoreAnalysis(path: databasePath, catalog: catalog).paths(query)
        return SitePages.paths(controls: controls, report: report, refusal: nil, provenance: provenance(since: started, columns: engine != nil))
    }

    /// The retention page (issue 35 §2): the matrix of the range's cohorts, and the previous
    /// period's when compared.
    func retentionPage(controls: SiteControls, range: (fromMs: Int64, toMs: Int64), previous: (fromMs: Int64, toMs: Int64)?) throws -> String {
        let started = ContinuousClock.now
        let returning = try RetentionQuery.returning(controls.returning ?? "app_open", catalog: catalog)
        let interval = RetentionQuery.Interval(rawValue: controls.interval.rawValue) ?? .day
        let query = { (from: Int64, to: Int64) in
            RetentionQuery(fromMs: from, toMs: to, interval: interval, returning: returning, actor: controls.panel.actor)
        }
        do {
            try query(range.fromMs, range.toMs).validate(catalog)
        } catch {
            throw SiteRefusal.retention(error.description)
        }
        let engine = columnEngine()
        let run = { (query: RetentionQuery) throws -> RetentionReport in
            if let engine { return try ColumnRetention(store: engine.store, catalog: self.catalog, firstSeen: engine.firstSeen).run(query) }
            return try StoreAnalysis(path: self.databasePath, catalog: self.catalog).retention(query)
        }
        let report = try run(query(range.fromMs, range.toMs))
        let before = try previous.map { try run(query($0.fromMs, $0.toMs)) }
        return SitePages.retention(catalog: catalog, controls: controls, breakdowns: breakdowns, report: report, previous: before, refusal: nil,
                                   provenance: provenance(since: started, columns: engine != nil))
    }

    /// The column engine for a page, the unsealed tail sealed first (``LiveColumnStore/engine()``);
    /// nil when the column copy cannot answer now (another process holds the writer for more than a
    /// minute, an error: logged by type), and the page reads the SQLite log, exactly and more slowly.
    func columnEngine() -> ColumnPanels? {
        do { return try columns?.engine() } catch {
            logger.warning("a page reads SQLite: the column store could not be brought up to date", metadata: ["error_type": "\(type(of: error))"])
            return nil
        }
    }

    /// The device times of the stored events a range preset starts from (issue 32 §2): from the
    /// column store as its last seal left it (no seal and no lock here: the probe runs before the
    /// page gate; ``draw(key:controls:render:)`` seals first), or from the log, a scan of every row.
    func storedTimeRange() throws -> (first: Int64, last: Int64)? {
        if let store = try? columns?.sealedStore() { return try store.eventTimeRange(toleranceMs: StoreAnalysis.futureToleranceMs) }
        return try StoreAnalysis(path: databasePath, catalog: catalog).eventTimeRange()
    }

    /// The catalog versions of the events in `range`, for the funnel notes: reading them scans the
    /// range (4 s at 100,000 installs × 30 days), so they are kept per range and store version —
    /// every funnel page and explorer run over the same days shares one read.
    func catalogVersions(_ store: StoreAnalysis, _ range: (fromMs: Int64, toMs: Int64)) throws -> [String] {
        let key = "\(range.fromMs)-\(range.toMs)@\(try version.current())"
        if let known = versionsByRange.withLock({ $0[key] }) { return known }
        let versions = try store.catalogVersions(fromMs: range.fromMs, toMs: range.toMs)
        versionsByRange.withLock { known in
            if known.count >= 16 { known.removeAll() }
            known[key] = versions
        }
        return versions
    }

    /// The page's footer: the store file and which engine answered (either holds every event
    /// stored before the page was asked for).
    func provenance(since started: ContinuousClock.Instant, columns: Bool = false) -> SitePages.Provenance {
        let elapsed = ContinuousClock.now - started
        let file = URL(fileURLWithPath: databasePath).lastPathComponent
        return SitePages.Provenance(renderedAt: Format.time(Int64(Date().timeIntervalSince1970 * 1000)),
                                    seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                                    source: columns ? "\(file), column store" : "\(file), log")
    }

    /// Runs blocking store work on a global queue, not on a Swift concurrency or NIO thread.
    static func offLoop<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> Result<T, Error> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: Result { try work() }) }
        }
    }
}
