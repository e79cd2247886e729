import Foundation
import HandzAnalyticsCore
import HandzIngest
@testable import HandzServer
import HandzSigning
import HandzStore
import HandzTestSupport
import HTTPTypes
import NIOCore
import Testing

/// A ``DashboardSite`` in this process on a fresh, empty store, with two analyst keys: the pages
/// are drawn for real (probe, fold, funnel, HTML), so what the tests count is what `serve` does.
struct InProcessSite {
    let directory: URL
    let site: DashboardSite
    let analyst: IngestionKey
    let colleague: IngestionKey

    init(cacheBudget: Int = PageCache.defaultBudget) throws {
        directory = try temporaryDirectory("handz-site")
        let store = directory.appendingPathComponent("handz-events.sqlite").path
        _ = try SQLiteEventStore(path: store)
        analyst = IngestionKey.generate(scopes: [.analyst])
        colleague = IngestionKey.generate(scopes: [.analyst])
        let keys = directory.appendingPathComponent("handz-keys.json").path
        try KeysFile(keys: [analyst, colleague]).save(path: keys)
        site = try DashboardSite(databasePath: store, catalog: RepositoryCatalog.catalog, dashboards: [], keys: try KeyRing(path: keys),
                                 cacheBudget: cacheBudget)
    }

    /// A session cookie of `key` (the analyst's by default).
    func cookie(_ key: IngestionKey? = nil) throws -> String {
        let key = key ?? analyst
        return "handz_session=" + (try #require(site.sessions.signIn(keyID: key.id, secretHex: key.secretHex)))
    }

    /// The explorer over one ended week: a cacheable page.
    static func explorer(from day: Int = 1) -> String {
        "steps=app_open,onboarding_viewed&range=custom&from=2026-03-\(String(format: "%02d", day))&to=2026-03-\(String(format: "%02d", day + 6))"
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

extension DashboardSite.SiteAnswer {
    var cacheHeader: String? { headers.first { $0.0 == "X-Handz-Cache" }?.1 }
    var storage: UnsafeRawPointer? { body.withUnsafeReadableBytes { $0.baseAddress } }
}

/// Identical requests merged before the render gate, different ones still gated (issue 32 §4).
@Suite(.serialized) struct ServedPageFlightTests {
    /// Waits, bounded, until `condition` holds: the tests synchronise on the site's own state
    /// (requests waiting at the gate or on a drawing), never on a fixed delay.
    static func until(_ what: String, within seconds: Double = 60, _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw Failure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("200 identical requests for an uncached page: one render, 200 × 200, and the answers share one body")
    func identicalRequestsShareOneRender() async throws {
        let test = try InProcessSite()
        defer { test.remove() }
        let site = test.site
        let cookie = try test.cookie()
        let page = InProcessSite.explorer()
        // The gate is held, so the first request waits at it while the others arrive.
        #expect(await site.gate.enter())
        let answers = Task {
            await withTaskGroup(of: DashboardSite.SiteAnswer.self) { group in
                for _ in 0..<200 { group.addTask { await site.page(.explorer, query: page, cookie: cookie) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Each request probes the store first, off the event loops on the global queue that every
        // suite running beside this one shares: on a loaded two-core run the 200 probes took over
        // a minute to clear (a CI run on 2026-11-27). The bound is generous, the wait ends as soon
        // as they have joined.
        try await Self.until("199 requests to join the drawing", within: 600) {
            let (followers, waiting) = (await site.flights.followers, await site.gate.waitingCount)
            return followers == 199 && waiting == 1
        }
        await site.gate.leave()
        let all = await answers.value
        #expect(all.count == 200)
        #expect(all.allSatisfy { $0.status == 200 }, "\(Dictionary(grouping: all, by: \.status).mapValues(\.count))")
        #expect(all.filter { $0.cacheHeader == "miss" }.count == 1, "one render")
        #expect(all.filter { $0.cacheHeader == "shared" }.count == 199)
        #expect(Set(all.map(\.storage)).count == 1, "every answer hands over the drawn page's bytes, not a copy")
        // Then two reloads: hits, sharing the cached page's storage.
        let first = await site.page(.explorer, query: page, cookie: cookie), second = await site.page(.explorer, query: page, cookie: cookie)
        #expect(first.cacheHeader == "hit" && second.cacheHeader == "hit")
        #expect(first.storage != nil && first.storage == second.storage)
        #expect(String(buffer: first.body).contains("Funnel explorer"))
    }

    @Test("a hard reload (Cache-Control: no-cache) draws the page again and replaces the cached one; a plain reload is a hit")
    func refreshDrawsAgain() async throws {
        let test = try InProcessSite()
        defer { test.remove() }
        let (site, cookie, page) = (test.site, try test.cookie(), InProcessSite.explorer())
        let drawn = await site.page(.explorer, query: page, cookie: cookie)
        let refreshed = await site.page(.explorer, query: page, cookie: cookie, refresh: true)
        let reloaded = await site.page(.explorer, query: page, cookie: cookie)
        #expect(drawn.cacheHeader == "miss" && refreshed.cacheHeader == "miss" && reloaded.cacheHeader == "hit")
        #expect(refreshed.storage != drawn.storage, "drawn again, not the cached bytes")
        #expect(reloaded.storage == refreshed.storage, "the refreshed page replaced the cached one")
    }

    @Test("which request headers ask for a refresh", arguments: [
        ([("Cache-Control", "no-cache")], true), ([("Cache-Control", "max-age=0, No-Cache")], true), ([("Pragma", "no-cache")], true),
        ([("Cache-Control", "max-age=0")], false), ([("Cache-Control", "no-store")], false), ([], false),
    ] as [([(String, String)], Bool)])
    func refreshHeaders(_ fields: [(String, String)], _ refresh: Bool) {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        #expect(DashboardRoutes.asksForRefresh(headers) == refresh)
    }

    @Test("different pages still obey the gate: one drawn, eight waiting, the rest 503")
    func differentPagesAreGated() async throws {
        let test = try InProcessSite()
        defer { test.remove() }
        let site = test.site
        let cookie = try test.cookie()
        #expect(await site.gate.enter())
        let answered = Locked(0)
        var group = [Task<DashboardSite.SiteAnswer, Never>]()
        for day in 1...10 {
            group.append(Task {
                let answer = await site.page(.explorer, query: InProcessSite.explorer(from: day), cookie: cookie)
                answered.withLock { $0 += 1 }
                return answer
            })
        }
        // Eight wait at the gate; the other two are refused at once.
        try await Self.until("eight requests waiting at the gate, two answered") {
            let waiting = await site.gate.waitingCount
            return waiting == 8 && answered.withLock { $0 } == 2
        }
        await site.gate.leave()
        let answers = await withTaskGroup(of: DashboardSite.SiteAnswer.self) { collected in
            for task in group { collected.addTask { await task.value } }
            return await collected.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.status == 503 }.count == 2)
        #expect(answers.filter { $0.status == 200 && $0.cacheHeader == "miss" }.count == 8)
    }
}

/// The page cache in bytes, by store version, without copies (issue 32 §3).
@Suite struct PageCacheTests {
    static func page(_ bytes: Int, _ fill: UInt8 = 0x61) -> ByteBuffer { ByteBuffer(bytes: [UInt8](repeating: fill, count: bytes)) }

    @Test("the cache holds at most its budget in bytes, least recently used out first, and never a page over an eighth of it")
    func boundedInBytes() {
        let cache = PageCache(budget: 8_000)
        for number in 0..<20 { cache.store("p\(number)", version: 1, Self.page(900)) }
        #expect(cache.usage.bytes <= 8_000)
        #expect(cache.usage.pages == 8)
        #expect(cache.page("p19", version: 1) != nil && cache.page("p0", version: 1) == nil)
        // A use keeps a page: p12 was the oldest, is used, and survives the next store.
        #expect(cache.page("p12", version: 1) != nil)
        cache.store("p20", version: 1, Self.page(900))
        #expect(cache.page("p12", version: 1) != nil && cache.page("p13", version: 1) == nil)
        cache.store("big", version: 1, Self.page(1_001))
        #expect(cache.page("big", version: 1) == nil, "larger than budget / 8")
        #expect(PageCache.defaultBudget == 64 << 20)
    }

    @Test("a newer store version drops every page of older ones at once; an older version is not stored")
    func olderVersionsDropped() {
        let cache = PageCache(budget: 1 << 20)
        for number in 0..<5 { cache.store("p\(number)", version: 3, Self.page(1_000)) }
        #expect(cache.usage == (5, 5_000))
        #expect(cache.page("p0", version: 4) == nil)
        #expect(cache.usage == (0, 0))
        cache.store("p0", version: 3, Self.page(1_000))
        #expect(cache.usage.pages == 0, "a page drawn at an older version than one seen")
        cache.store("p0", version: 4, Self.page(1_000))
        #expect(cache.page("p0", version: 4) != nil)
    }

    @Test("a hit hands over the stored bytes: two hits share one storage")
    func hitsShareStorage() {
        let cache = PageCache(budget: 1 << 20)
        let stored = Self.page(4_096)
        cache.store("p", version: 1, stored)
        let first = cache.page("p", version: 1), second = cache.page("p", version: 1)
        let address = { (buffer: ByteBuffer?) in buffer?.withUnsafeReadableBytes { $0.baseAddress } }
        #expect(address(first) != nil && address(first) == address(second) && address(first) == address(stored))
    }
}

/// Analyst sessions: a per-key cap, and the rule for two session cookies (issue 32 §4).
@Suite struct AnalystSessionsTests {
    @Test("1,001 sign-ins of one key keep 20 of its sessions and never end another key's")
    func perKeyCap() throws {
        let test = try InProcessSite()
        defer { test.remove() }
        let sessions = test.site.sessions
        let start = Date()
        let colleague = try #require(sessions.signIn(keyID: test.colleague.id, secretHex: test.colleague.secretHex, now: start))
        var tokens: [String] = []
        for number in 1...1_001 {
            tokens.append(try #require(sessions.signIn(keyID: test.analyst.id, secretHex: test.analyst.secretHex, now: start + Double(number) / 1_000)))
        }
        #expect(sessions.count(keyID: test.analyst.id) == AnalystSessions.perKey)
        #expect(sessions.keyID(token: colleague, now: start + 2) == test.colleague.id, "the other analyst is still signed in")
        #expect(sessions.keyID(token: tokens.last!, now: start + 2) == test.analyst.id)
        #expect(sessions.keyID(token: tokens[tokens.count - AnalystSessions.perKey], now: start + 2) == test.analyst.id)
        #expect(sessions.keyID(token: tokens[tokens.count - AnalystSessions.perKey - 1], now: start + 2) == nil, "the key's own oldest ended")
    }

    @Test("the session cookie: none, one (even repeated), or conflicting", arguments: [
        (nil, AnalystSessions.SessionCookie.none),
        ("other=1", .none),
        ("handz_session=aa", .token("aa")),
        ("a=1; handz_session=aa; handz_session=aa", .token("aa")),
        ("handz_session=aa; handz_session=bb", .conflicting(["aa", "bb"])),
        ("handz_session=; handz_session=aa", .conflicting(["", "aa"])),
    ] as [(String?, AnalystSessions.SessionCookie)])
    func cookieRule(_ header: String?, _ expected: AnalystSessions.SessionCookie) {
        #expect(AnalystSessions.sessionCookie(header) == expected)
    }

    @Test("two different session cookies: 400 whichever comes first, no session used; signing out ends both")
    func twoCookiesRefused() async throws {
        let test = try InProcessSite()
        defer { test.remove() }
        let site = test.site
        let mine = try test.cookie(), planted = try test.cookie(test.colleague)
        #expect(await site.page(.index, query: "", cookie: mine).status == 200)
        for header in ["\(mine); \(planted)", "\(planted); \(mine)", "\(mine); handz_session=\(String(repeating: "0", count: 64))"] {
            let answer = await site.page(.index, query: "", cookie: header)
            #expect(answer.status == 400, "\(header)")
            let body = String(buffer: answer.body)
            #expect(!body.contains("dashboard-link") && body.contains("more than one dashboard session cookie"))
            #expect(!body.contains(String(mine.dropFirst(14))) && !body.contains(String(planted.dropFirst(14))))
        }
        #expect(await site.page(.index, query: "", cookie: "\(mine); \(mine)").status == 200, "the same session twice is one session")
        let out = site.signOut(cookie: "\(planted); \(mine)", origin: nil, fetchSite: nil, host: "127.0.0.1")
        #expect(out.status == 303)
        #expect(await site.page(.index, query: "", cookie: mine).status == 303)
        #expect(await site.page(.index, query: "", cookie: planted).status == 303)
    }
}
