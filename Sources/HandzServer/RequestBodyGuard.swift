import HandzIngest
import Hummingbird
import HTTPTypes

/// Bounds what any request may send after its head (issue 32 §1; the ThreatModel's "a stalled
/// body answered 408").
///
/// Only the routes named in ``IngestRouter/bodyReaders`` read a body, and each reads it with a
/// size limit and one deadline for the whole body (``IngestRouter/collect(_:limit:within:)``).
/// Every other request that declares a body — a `Content-Length` above 0, or any
/// `Transfer-Encoding` (a chunked body has no length to check) — is answered 413
/// `payload_too_large` before its handler runs, and its connection is closed instead of drained.
/// Without this the server would answer and then read the unread body to its end, for as long as
/// the client trickles it: each body part resets the idle timer, so one byte every few seconds
/// held a connection (and a slot of `--max-connections`) forever, with no key.
///
/// It sits in front of every route, unknown paths included: the router's not-found answer runs
/// behind it, with no endpoint path, so a body sent there is refused the same way.
struct RequestBodyGuard: RouterMiddleware {
    typealias Context = ServerContext
    /// `"METHOD /path/{capture}"` of each route that reads a body, as the router names it.
    let readers: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.declaresBody(request.headers), !readers.contains(Self.key(method: request.method, endpoint: context.endpointPath)) else {
            return try await next(request, context)
        }
        return IngestRouter.closing(.error(.payloadTooLarge("this route takes no request body")), channel: context.channel)
    }

    /// Whether the head announces a body: a non-zero (or unreadable) `Content-Length`, or any
    /// `Transfer-Encoding`.
    static func declaresBody(_ headers: HTTPFields) -> Bool {
        if headers[.transferEncoding] != nil { return true }
        guard let length = headers[.contentLength] else { return false }
        return Int(length) != 0
    }

    /// The key ``readers`` holds for a request; a path no route matched has none.
    static func key(method: HTTPRequest.Method, endpoint: String?) -> String {
        "\(method.rawValue) \(endpoint ?? "")"
    }
}
