import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandzSigning
import HandzTestSupport
import Testing

/// The dashboards `serve` hosts (issue 16 §1, "Security tests"), over real HTTP against the real
/// server process: nothing answers without an analyst session, ingest and admin keys cannot sign
/// in, an analyst key cannot ingest, a cross-site sign-in is refused, crafted parameters get 400
/// and are never reflected, and every answer carries the security headers.
@Suite(.serialized) struct DashboardSecurityTests {
    /// One HTTP/1.1 exchange on a fresh connection (`Connection: close`), redirects not followed:
    /// the tests look at 303s and their headers.
    struct Exchange {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var allHeaders: [String] { headers.filter { $0.0.lowercased() == "set-cookie" }.map(\.1) }
    }

    static func exchange(port: Int, _ method: String, _ target: String, headers: [String: String] = [:], body: String = "") throws -> Exchange {
        let fd = LoopbackSockets.connect(port: port)
        guard fd >= 0 else { throw Failure("cannot connect") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if method == "POST" { request += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + body
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw Failure("short write") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < 64 << 20 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure("no response head") }
        let lines = text[..<split.lowerBound].split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { throw Failure("no status") }
        let fields = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Exchange(status: status, headers: fields, body: String(text[split.upperBound...]))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A server on a fresh store with an ingest, an admin and an analyst key.
    struct Site {
        let directory: URL
        let server: ServerProcess
        let ingest: IngestionKey
        let admin: IngestionKey
        let analyst: IngestionKey

        init(arguments: [String] = [], environment: [String: String] = [:]) throws {
            directory = try temporaryDirectory("handz-dashboards")
            ingest = IngestionKey.generate(scopes: [.ingest])
            admin = IngestionKey.generate(scopes: [.admin])
            analyst = IngestionKey.generate(scopes: [.analyst])
            try KeysFile(keys: [ingest, admin, analyst]).save(path: directory.appendingPathComponent("handz-keys.json").path)
            server = try ServerProcess(directory: directory, arguments: arguments, environment: environment)
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        func get(_ target: String, cookie: String? = nil) throws -> Exchange {
            try DashboardSecurityTests.exchange(port: server.port, "GET", target, headers: cookie.map { ["Cookie": $0] } ?? [:])
        }

        func signIn(_ key: IngestionKey, secret: String? = nil, headers: [String: String] = [:]) throws -> Exchange {
            try DashboardSecurityTests.exchange(port: server.port, "POST", "/dashboards/login", headers: headers, body: "key_id=\(key.id)&secret=\(secret ?? key.secretHex)")
        }

        /// The analyst's session cookie (`name=value`).
        func session() throws -> String {
            let answer = try signIn(analyst)
            guard answer.status == 303, let cookie = answer.allHeaders.first?.split(separator: ";").first else { throw Failure("no session (\(answer.status))") }
            return String(cookie)
        }
    }

    static let pages = ["/dashboards/", "/dashboards", "/dashboards/d/activation_onboarding", "/dashboards/d/launch_health?range=all&compare=previous",
                        "/dashboards/explore", "/dashboards/explore?steps=app_open,onboarding_viewed"]

    static func expectSecurityHeaders(_ answer: Exchange, _ what: String) {
        let policy = answer.header("Content-Security-Policy") ?? ""
        #expect(policy.hasPrefix("default-src 'none';"), "\(what): \(policy)")
        #expect(policy.contains("style-src 'unsafe-inline'") && !policy.contains("script-src"), "\(what)")
        #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(what)")
    }

    @Test("X-Forwarded-Proto: https marks the session cookie Secure only from a trusted proxy (loopback by default; --trusted-proxy, also from the settings file's list)")
    func secureCookieFromTrustedProxiesOnly() throws {
        func cookie(_ site: Site, forwarded: Bool) throws -> String {
            let answer = try site.signIn(site.analyst, headers: forwarded ? ["X-Forwarded-Proto": "https"] : [:])
            #expect(answer.status == 303)
            return answer.allHeaders.first ?? ""
        }
        // Default: the test's loopback peer is a proxy on this host.
        let byDefault = try Site()
        defer { byDefault.stop() }
        #expect(try cookie(byDefault, forwarded: true).hasSuffix("; Secure"))
        #expect(!(try cookie(byDefault, forwarded: false)).contains("Secure"))
        // Trusting only another address: the same header from this peer is ignored.
        let settings = FileManager.default.temporaryDirectory.appendingPathComponent("handz-proxy-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: settings) }
        try "trusted-proxy: [192.0.2.10, 192.0.2.11]\n".write(to: settings, atomically: true, encoding: .utf8)
        let elsewhere = try Site(environment: ["HANDZ_SERVE_CONFIG": settings.path])
        defer { elsewhere.stop() }
        #expect(!(try cookie(elsewhere, forwarded: true)).contains("Secure"))
        let noProxy = try Site(arguments: ["--trusted-proxy", "none"])
        defer { noProxy.stop() }
        #expect(!(try cookie(noProxy, forwarded: true)).contains("Secure"))
    }

    @Test("no page answers without an analyst session: each redirects to the sign-in form and shows no figure")
    func noSessionNoPage() throws {
        let site = try Site()
        defer { site.stop() }
        for cookie in [nil, "handz_session=" + String(repeating: "ab", count: 32), "handz_session=x"] {
            for page in Self.pages {
                let answer = try site.get(page, cookie: cookie)
                #expect(answer.status == 303, "\(page)")
                #expect(answer.header("Location") == "/dashboards/login", "\(page)")
                #expect(!answer.body.contains("class=\"panel\"") && !answer.body.contains("<table"), "\(page)")
                Self.expectSecurityHeaders(answer, page)
            }
        }
        let login = try site.get("/dashboards/login")
        #expect(login.status == 200 && login.body.contains("id=\"login\""))
        Self.expectSecurityHeaders(login, "login")
    }

    @Test("ingest and admin keys cannot sign in, nor a wrong secret; an analyst key can, and cannot ingest")
    func scopes() async throws {
        let site = try Site()
        defer { site.stop() }
        for (key, secret) in [(site.ingest, nil), (site.admin, nil), (site.analyst, site.ingest.secretHex), (site.analyst, "zz")] {
            let answer = try site.signIn(key, secret: secret)
            #expect(answer.status == 401)
            #expect(answer.allHeaders.isEmpty, "no cookie on a refusal")
            #expect(!answer.body.contains(key.id) && !answer.body.contains(key.secretHex))
            Self.expectSecurityHeaders(answer, "refused sign-in")
        }
        let accepted = try site.signIn(site.analyst)
        #expect(accepted.status == 303 && accepted.header("Location") == "/dashboards/")
        let cookie = try #require(accepted.allHeaders.first)
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/dashboards"] { #expect(cookie.contains(attribute)) }
        let session = String(cookie.split(separator: ";")[0])
        let index = try site.get("/dashboards/", cookie: session)
        #expect(index.status == 200 && index.body.contains("dashboard-link"))
        // The analyst key signs a batch: refused, it has no ingest scope.
        let sent = try await IngestHTTPClient(baseURL: site.server.baseURL, key: site.analyst).send(events: ServerProcessTests.events(1, offset: 0))
        #expect(sent.status == 403)
        // Signing out ends the session.
        let out = try Self.exchange(port: site.server.port, "POST", "/dashboards/logout", headers: ["Cookie": session])
        #expect(out.status == 303)
        #expect(try site.get("/dashboards/", cookie: session).status == 303)
    }

    @Test("a key that is analyst and more (a hand-edited keys file) cannot sign in; a flood of failed sign-ins never locks out the right key")
    func combinedScopesAndThrottle() throws {
        let directory = try temporaryDirectory("handz-dashboards-scopes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let combined = IngestionKey.generate(scopes: [.ingest, .analyst])
        let analyst = IngestionKey.generate(scopes: [.analyst])
        try KeysFile(keys: [combined, analyst]).save(path: directory.appendingPathComponent("handz-keys.json").path)
        let server = try ServerProcess(directory: directory)
        defer { server.stop() }
        let signIn = { (key: IngestionKey, secret: String) in
            try Self.exchange(port: server.port, "POST", "/dashboards/login", body: "key_id=\(key.id)&secret=\(secret)")
        }
        #expect(try signIn(combined, combined.secretHex).status == 401)
        var statuses: [Int] = []
        for _ in 0..<25 { statuses.append(try signIn(analyst, String(repeating: "0", count: 64)).status) }
        #expect(statuses.prefix(19).allSatisfy { $0 == 401 } && statuses.suffix(5).allSatisfy { $0 == 429 }, "\(statuses)")
        #expect(try signIn(analyst, analyst.secretHex).status == 303)
    }

    @Test("a sign-in from another site is refused (Origin, Sec-Fetch-Site)")
    func crossSite() throws {
        let site = try Site()
        defer { site.stop() }
        for headers in [["Origin": "http://evil.example"], ["Origin": "null"], ["Sec-Fetch-Site": "cross-site"], ["Origin": "http://127.0.0.1:1"]] {
            let answer = try site.signIn(site.analyst, headers: headers)
            #expect(answer.status == 403, "\(headers)")
            #expect(answer.allHeaders.isEmpty)
        }
        #expect(try site.signIn(site.analyst, headers: ["Origin": "http://127.0.0.1:\(site.server.port)", "Sec-Fetch-Site": "same-origin"]).status == 303)
    }

    @Test("crafted parameters are refused with 400 and never reflected")
    func craftedParameters() throws {
        let site = try Site()
        defer { site.stop() }
        let session = try site.session()
        // Each carries the marker zq9x, which must not come back in any form.
        let crafted = [
            "/dashboards/d/activation_onboarding?breakdown=%3Cscript%3Ezq9x%3C%2Fscript%3E",
            "/dashboards/d/activation_onboarding?range=zq9x",
            "/dashboards/d/activation_onboarding?range=custom&from=2026-13-45&to=zq9x",
            "/dashboards/d/activation_onboarding?range=custom&from=2026-02-30&to=2026-03-01&zq9x=1",
            "/dashboards/d/activation_onboarding?actor=zq9x",
            "/dashboards/d/activation_onboarding?window=zq9x",
            "/dashboards/d/activation_onboarding?compare=zq9x",
            "/dashboards/d/activation_onboarding?breakdown=start_type&breakdown=zq9x",
            "/dashboards/d/activation_onboarding?steps=app_open,zq9x",
            "/dashboards/d/activation_onboarding?zq9x=%ZZ",
            "/dashboards/explore?steps=app_open,%3Cimg%20src=x%3Ezq9x",
            "/dashboards/explore?steps=app_open,onboarding_viewed&breakdown=zq9x",
            "/dashboards/explore?steps=app_open[zq9x=1],onboarding_viewed",
            "/dashboards/explore?step=zq9x&step=app_open",
        ]
        for target in crafted {
            let answer = try site.get(target, cookie: session)
            #expect(answer.status == 400, "\(target): \(answer.status)")
            #expect(!answer.body.contains("zq9x"), "\(target) reflected")
            #expect(answer.body.contains("class=\"error\""), "\(target)")
            Self.expectSecurityHeaders(answer, target)
        }
        for target in ["/dashboards/d/zq9x", "/dashboards/d/..%2F..%2Fzq9x", "/dashboards/zq9x/x"] {
            let answer = try site.get(target, cookie: session)
            #expect(answer.status == 404, "\(target): \(answer.status)")
            #expect(!answer.body.contains("zq9x"))
            Self.expectSecurityHeaders(answer, target)
        }
    }

    @Test("two different handz_session cookies (one planted from a sibling host) get 400, whichever comes first; the same one twice is one session")
    func twoSessionCookies() throws {
        let site = try Site()
        defer { site.stop() }
        let mine = try site.session(), other = try site.session()
        #expect(mine != other)
        for cookie in ["\(mine); \(other)", "\(other); \(mine)", "\(mine); handz_session=\(String(repeating: "ab", count: 32))"] {
            let answer = try site.get("/dashboards/", cookie: cookie)
            #expect(answer.status == 400, "\(answer.status)")
            #expect(!answer.body.contains("dashboard-link") && !answer.body.contains(String(mine.dropFirst(14))))
            Self.expectSecurityHeaders(answer, "two cookies")
        }
        #expect(try site.get("/dashboards/", cookie: "\(mine); \(mine)").status == 200)
    }

    @Test("a page of a range that has ended is cached until the store changes")
    func cachedUntilTheStoreChanges() async throws {
        // Retention off: its first run, at start, writes its audit row (a commit to the store),
        // and on a loaded machine that commit can land between the two requests below.
        let site = try Site(arguments: ["--retention", "off"])
        defer { site.stop() }
        let session = try site.session()
        let page = "/dashboards/d/activation_onboarding?range=custom&from=2026-03-01&to=2026-03-07"
        let first = try site.get(page, cookie: session)
        #expect(first.status == 200 && first.header("X-Handz-Cache") == "miss")
        #expect(first.body.contains("<title>Activation + Onboarding · 2026-03-01 – 2026-03-07"))
        #expect(try site.get(page, cookie: session).header("X-Handz-Cache") == "hit")
        // Other controls are another page.
        #expect(try site.get(page + "&actor=user", cookie: session).header("X-Handz-Cache") == "miss")
        // New events (a commit to the store) make every page new.
        let sent = try await IngestHTTPClient(baseURL: site.server.baseURL, key: site.ingest).send(events: ServerProcessTests.events(3, offset: 0))
        #expect(sent.status == 200)
        #expect(try site.get(page, cookie: session).header("X-Handz-Cache") == "miss")
        // A range that includes today is computed every time.
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        let live = "/dashboards/d/activation_onboarding?range=custom&from=\(today)&to=\(today)"
        #expect(try site.get(live, cookie: session).header("X-Handz-Cache") == "live")
        #expect(try site.get(live, cookie: session).header("X-Handz-Cache") == "live")
    }
}
