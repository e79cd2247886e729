import HandzDashboards
import Hummingbird
import HTTPTypes
import NIOCore

/// The served dashboards' routes (issue 16), added to the ingestion router when `serve` runs on
/// the embedded store:
///
/// - `GET /dashboards/login`, `POST /dashboards/login` (form: `key_id`, `secret`), `POST /dashboards/logout`
/// - `GET /dashboards/` — the index; `GET /dashboards/d/{id}` — one dashboard; `GET /dashboards/explore`
///
/// Every answer carries ``securityHeaders``: a Content-Security-Policy that allows no script, no
/// fetch and no framing (the pages need none: inline CSS and SVG only), `nosniff`, no referrer to other sites,
/// and `no-store` (the pages hold business figures; the server keeps its own cache).
enum DashboardRoutes {
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        // Not `no-referrer`: under it a browser sends `Origin: null` with the sign-in form, which
        // the CSRF check must then refuse. `same-origin` sends nothing to other sites.
        ("Referrer-Policy", "same-origin"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-store"),
    ]

    /// The dashboard routes that read a body (the sign-in form; sign-out reads and ignores one),
    /// for ``RequestBodyGuard``: every page refuses a body.
    static let bodyReaders: Set<String> = ["POST \(SitePages.root)/login", "POST \(SitePages.root)/logout"]

    static func add(to router: Router<ServerContext>, site: DashboardSite, bodyTimeout: Duration, trustedProxies: TrustedProxies) {
        let root = SitePages.root
        router.get(RouterPath(root + "/login")) { _, _ in respond(.init(status: 200, html: SitePages.login())) }
        router.post(RouterPath(root + "/login")) { request, context in
            try await IngestRouter.withSmallBody(request, context, within: bodyTimeout) { body in
                respond(site.signIn(body: body, origin: request.headers[.origin], fetchSite: request.headers[fetchSite],
                                    host: request.head.authority,
                                    secure: trustedProxies.trusts(context.channel.remoteAddress) && request.headers[forwardedProto] == "https"))
            }
        }
        router.post(RouterPath(root + "/logout")) { request, context in
            try await IngestRouter.withSmallBody(request, context, within: bodyTimeout) { _ in
                respond(site.signOut(cookie: cookies(request), origin: request.headers[.origin], fetchSite: request.headers[fetchSite],
                                     host: request.head.authority))
            }
        }
        // `/dashboards` and `/dashboards/` are one route (the router ignores a trailing slash).
        router.get(RouterPath(root + "/")) { request, _ in
            respond(await site.page(.index, query: request.uri.query ?? "", cookie: cookies(request), refresh: asksForRefresh(request.headers)))
        }
        router.get(RouterPath(root + "/explore")) { request, _ in
            respond(await site.page(.explorer, query: request.uri.query ?? "", cookie: cookies(request), refresh: asksForRefresh(request.headers)))
        }
        router.get(RouterPath(root + "/trends")) { request, _ in
            respond(await site.page(.trends, query: request.uri.query ?? "", cookie: cookies(request), refresh: asksForRefresh(request.headers)))
        }
        router.get(RouterPath(root + "/paths")) { request, _ in
            respond(await site.page(.paths, query: request.uri.query ?? "", cookie: cookies(request), refresh: asksForRefresh(request.headers)))
        }
        router.get(RouterPath(root + "/retention")) { request, _ in
            respond(await site.page(.retention, query: request.uri.query ?? "", cookie: cookies(request), refresh: asksForRefresh(request.headers)))
        }
        router.get(RouterPath(root + "/d/:dashboard")) { request, context in
            respond(await site.page(.dashboard(context.parameters.get("dashboard") ?? ""), query: request.uri.query ?? "", cookie: cookies(request), refresh: asksForRefresh(request.headers)))
        }
        // Any other address under the root: a fixed 404 with the same headers.
        router.get(RouterPath(root + "/**")) { _, _ in
            respond(.init(status: 404, html: SitePages.error(title: "Not found", message: "There is no page at this address.", signedIn: false)))
        }
    }

    /// Whether the request asks for a page drawn now rather than the cached one: `Cache-Control:
    /// no-cache` or `Pragma: no-cache` (RFC 9111 §5.2.1.4, §5.4), what a browser's hard reload
    /// sends. A plain reload (`max-age=0`) is served from the cache: the cached page is exact for
    /// its store version, and recomputing it would only cost the analyst time.
    static func asksForRefresh(_ headers: HTTPFields) -> Bool {
        let directives = headers[values: .cacheControl].flatMap { $0.split(separator: ",") }
            + headers[values: pragma].flatMap { $0.split(separator: ",") }
        return directives.contains { $0.filter { $0 != " " && $0 != "\t" }.lowercased() == "no-cache" }
    }

    static let pragma = HTTPField.Name("Pragma")!
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    /// Every `Cookie` field of the request as one header: a client may send several (HTTP/2
    /// always splits them), and the session rule looks at all of them
    /// (``AnalystSessions/SessionCookie``).
    static func cookies(_ request: Request) -> String? {
        let fields = request.headers[values: .cookie]
        return fields.isEmpty ? nil : fields.joined(separator: "; ")
    }

    /// The answer as a response; its body is handed over as it is (a cached page's storage is
    /// shared, never copied).
    static func respond(_ page: DashboardSite.SiteAnswer) -> Response {
        var headers = IngestRouter.fields(securityHeaders + page.headers)
        if page.body.readableBytes > 0 { headers[.contentType] = "text/html; charset=utf-8" }
        return Response(status: .init(code: page.status), headers: headers, body: .init(byteBuffer: page.body))
    }
}
