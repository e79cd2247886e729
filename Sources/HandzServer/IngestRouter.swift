import HandzIngest
import HandzSigning
import Hummingbird
import HTTPTypes
import NIOCore

/// The HTTP surface of the ingestion endpoint. Handlers translate HTTP to `IngestService` and
/// back; every rule lives in `IngestService`.
///
/// - `POST /v1/batch` — ingest a signed batch
/// - `DELETE /v1/users/{user_id}` — request a user's deletion: 202 and a request id (admin scope)
/// - `GET /v1/deletions/{request_id}` — that request's progress (admin scope)
/// - `POST /v1/admin/reload` — reload the catalog (admin scope)
/// - `POST /v1/admin/maintenance?seconds=N` — answer 503 + Retry-After for N seconds (admin scope)
/// - `GET /v1/client-config` — the clients' settings, with an ETag (ingest scope)
/// - `GET /openapi.json` — this API as OpenAPI 3.1 (`openapi.yaml`, issue 18 §3)
/// - `/dashboards/…` — the dashboards, for analyst keys, on the embedded store (``DashboardRoutes``)
/// - `GET /health`, and `GET /metrics` (Prometheus text) when it is served on the ingest port
///   (``MetricsPlacement``; otherwise ``metricsOnly()`` serves it on its own listener)
///
/// Only the routes in ``bodyReaders`` take a request body; ``RequestBodyGuard`` refuses one
/// everywhere else, unknown paths included.
enum IngestRouter {
    /// The routes whose handlers read a body, each bounded in size and by the body timeout
    /// (``collect(_:limit:within:)``): the batch, and the signed routes whose signature covers a
    /// (normally empty) body. Named as the router names them (`{capture}` for a parameter).
    static let bodyReaders: Set<String> = [
        "POST /v1/batch", "DELETE /v1/users/{user_id}", "GET /v1/deletions/{request_id}",
        "POST /v1/admin/maintenance", "POST /v1/admin/reload", "GET /v1/client-config",
    ]

    static func make(service: IngestService, accessLog: AccessLog?, bodyTimeout: Duration = .seconds(30),
                     clientConfig: ClientConfig = ClientConfig(), servesMetrics: Bool = true, dashboards: DashboardSite? = nil,
                     trustedProxies: TrustedProxies = .loopback, ingests: Bool = true) -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        if let accessLog { router.add(middleware: AccessLogMiddleware(log: accessLog)) }
        // Before every route (a middleware applies to the routes added after it, and to the
        // not-found answer).
        router.add(middleware: RequestBodyGuard(readers: bodyReaders.union(dashboards == nil ? [] : DashboardRoutes.bodyReaders)))

        // An analysis node (`serve --follow`, issue 36) holds a copy: events and deletion requests go
        // to the ingest nodes, and these routes answer 404 here.
        if ingests {
            router.post("/v1/batch") { request, context in
                // Refused before its body is read: close rather than drain a body still arriving.
                guard service.admit() else {
                    return RequestBodyGuard.declaresBody(request.headers) ? closing(service.concurrencyLimited, channel: context.channel)
                        : response(service.concurrencyLimited)
                }
                defer { service.release() }
                if let length = request.headers[.contentLength].flatMap(Int.init), let tooLarge = service.tooLarge(contentLength: length) {
                    return closing(tooLarge, channel: context.channel)
                }
                let body: [UInt8]
                switch try await collect(request, limit: service.limits.maxBodyBytes, within: bodyTimeout) {
                case .complete(let bytes): body = bytes
                case .tooLarge: return closing(service.bodyTooLarge, channel: context.channel)
                case .timedOut: return closing(.error(.requestTimeout(seconds: Int(bodyTimeout.components.seconds))), channel: context.channel)
                }
                return response(await service.ingest(headers: headerMap(request.headers), body: body, target: target(request)))
            }

            router.delete("/v1/users/:user_id") { request, context in
                try await withSmallBody(request, context, within: bodyTimeout) { body in
                    let userID = context.parameters.get("user_id") ?? ""
                    return response(await service.forgetUser(userID, headers: headerMap(request.headers), body: body, target: target(request)))
                }
            }
        }

        router.get("/v1/deletions/:request_id") { request, context in
            try await withSmallBody(request, context, within: bodyTimeout) { body in
                let requestID = context.parameters.get("request_id") ?? ""
                return response(await service.deletionStatus(requestID, headers: headerMap(request.headers), body: body, target: target(request)))
            }
        }

        router.post("/v1/admin/maintenance") { request, context in
            try await withSmallBody(request, context, within: bodyTimeout) { body in
                // Out of Int's range parses as nil, then -1: refused by the service's 0-86400 check.
                let seconds = request.uri.queryParameters["seconds"].flatMap { Int(String($0)) } ?? -1
                return response(service.maintenance(seconds: seconds, headers: headerMap(request.headers), body: body, target: target(request)))
            }
        }

        router.post("/v1/admin/reload") { request, context in
            try await withSmallBody(request, context, within: bodyTimeout) { body in
                response(service.reloadCatalog(headers: headerMap(request.headers), body: body, target: target(request)))
            }
        }

        router.get("/health") { _, _ in response(service.health()) }

        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }

        router.get("/v1/client-config") { request, context in
            try await withSmallBody(request, context, within: bodyTimeout) { body in
                response(service.clientConfig(clientConfig, headers: headerMap(request.headers), body: body, target: target(request)))
            }
        }

        if servesMetrics { addMetrics(to: router) }
        if let dashboards { DashboardRoutes.add(to: router, site: dashboards, bodyTimeout: bodyTimeout, trustedProxies: trustedProxies) }
        return router
    }

    /// The metrics listener's router: `GET /metrics` and nothing else.
    static func metricsOnly() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: RequestBodyGuard(readers: []))
        addMetrics(to: router)
        return router
    }

    static func addMetrics(to router: Router<ServerContext>) {
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: ServerMetrics.registry.emitToBuffer())))
        }
    }

    /// Largest body of the admin routes and `GET /v1/client-config` (they carry none): a larger
    /// one gets 413 — from `Content-Length` before reading — never a silently truncated read the
    /// signature would not cover. Small, because these routes take no processing slot and read
    /// before the signature is checked: 1 KiB per open connection at most.
    static let smallBodyLimit = 1024

    /// Runs `handle` with the body of a route that takes at most ``smallBodyLimit`` bytes, read
    /// within the body timeout; a larger body gets 413 and a slower one 408, each closing the
    /// connection.
    static func withSmallBody(_ request: Request, _ context: ServerContext, within timeout: Duration,
                              _ handle: ([UInt8]) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > smallBodyLimit {
            return closing(.error(.payloadTooLarge("body is larger than \(smallBodyLimit) bytes")), channel: context.channel)
        }
        return switch try await collect(request, limit: smallBodyLimit, within: timeout) {
        case .complete(let body): try await handle(body)
        case .tooLarge: closing(.error(.payloadTooLarge("body is larger than \(smallBodyLimit) bytes")), channel: context.channel)
        case .timedOut: closing(.error(.requestTimeout(seconds: Int(timeout.components.seconds))), channel: context.channel)
        }
    }

    enum Collected: Sendable {
        case complete([UInt8])
        case tooLarge
        case timedOut
    }

    /// The whole batch body — unless it is larger than `limit`, or has not arrived `within` the
    /// body timeout (a sender trickling a body byte by byte holds a connection and a request
    /// slot; the idle timeout only covers connections with no request in progress).
    static func collect(_ request: Request, limit: Int, within timeout: Duration) async throws -> Collected {
        try await withThrowingTaskGroup(of: Collected.self) { group in
            group.addTask {
                guard let bytes = try await collect(request, limit: limit) else { return .tooLarge }
                return .complete(bytes)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timedOut
            }
            let first = try await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
    }

    /// The whole body, or nil when it is larger than `limit`.
    static func collect(_ request: Request, limit: Int) async throws -> [UInt8]? {
        do {
            var buffer = try await request.body.collect(upTo: limit)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            return nil
        }
    }

    /// The request line as received, percent-encoding intact: what an HZ2 signature covers.
    static func target(_ request: Request) -> RequestSignature.Target {
        RequestSignature.Target(method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "")
    }

    static func headerMap(_ fields: HTTPFields) -> [String: String] {
        var map: [String: String] = [:]
        for field in fields { map[field.name.canonicalName] = field.value }
        return map
    }

    static func response(_ answer: IngestResponse) -> Response {
        Response(status: .init(code: answer.status), headers: fields(answer.headers), body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in pairs {
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
        return headers
    }

    /// Sends `answer`, then closes the connection: the client declared a body too large to read,
    /// so it is not drained.
    static func closing(_ answer: IngestResponse, channel: any Channel) -> Response {
        var headers = fields(answer.headers)
        headers[.connection] = "close"
        let buffer = ByteBuffer(bytes: answer.body)
        return Response(status: .init(code: answer.status), headers: headers, body: ResponseBody(contentLength: buffer.readableBytes) { writer in
            try await writer.write(buffer)
            try await writer.finish(nil)
            try? await channel.close()
        })
    }
}
