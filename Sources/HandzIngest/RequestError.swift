import HandzAnalyticsCore
import HandzSigning

/// Whole-request failures of the ingestion API, each with a stable code and HTTP status. The
/// JSON body is `{"error": {"code": "...", "message": "..."}}` and never echoes payload values.
public enum RequestError: Error, Sendable, Equatable {
    case malformedEnvelope(String)
    case unauthorized(String)
    /// The signature's `ts` is more than `RequestSignature.maxClockSkewSeconds` from the server
    /// clock; carries the server's time (unix seconds) so the client can correct its offset.
    case clockSkew(serverTime: Int64)
    /// An admin request whose signature the endpoint has already accepted once.
    case replayedSignature
    case forbidden(String)
    case payloadTooLarge(String)
    case unsupportedMediaType(String)
    case rateLimited(retryAfterSeconds: Int)
    case storeUnavailable(retryAfterSeconds: Int)
    case notFound
    /// `GET /v1/deletions/{id}` for an id the ledger does not hold (or no longer holds: retention).
    case deletionNotFound
    case catalogInvalid(String)
    /// The request body did not arrive within the server's body timeout (a slow or stalled
    /// sender holding a connection open); the connection is closed.
    case requestTimeout(seconds: Int)

    public var code: String {
        switch self {
        case .malformedEnvelope: "malformed_envelope"
        case .unauthorized: "unauthorized"
        case .clockSkew: "clock_skew"
        case .replayedSignature: "replayed_signature"
        case .forbidden: "forbidden"
        case .payloadTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .rateLimited: "rate_limited"
        case .storeUnavailable: "store_unavailable"
        case .notFound, .deletionNotFound: "not_found"
        case .catalogInvalid: "catalog_invalid"
        case .requestTimeout: "request_timeout"
        }
    }

    public var status: Int {
        switch self {
        case .malformedEnvelope: 400
        case .unauthorized, .clockSkew, .replayedSignature: 401
        case .forbidden: 403
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .rateLimited: 429
        case .storeUnavailable: 503
        case .notFound, .deletionNotFound: 404
        case .catalogInvalid: 422
        case .requestTimeout: 408
        }
    }

    public var message: String {
        switch self {
        case .malformedEnvelope(let text), .unauthorized(let text), .forbidden(let text), .payloadTooLarge(let text),
             .unsupportedMediaType(let text), .catalogInvalid(let text):
            text
        case .rateLimited: "rate limit exceeded; retry after the Retry-After delay"
        case .storeUnavailable: "the event store is unavailable; retry after the Retry-After delay"
        case .notFound: "no such endpoint"
        case .deletionNotFound: "no deletion request has this id"
        case .clockSkew:
            "signature timestamp is more than \(RequestSignature.maxClockSkewSeconds) s from the server clock; sign again with the server_time offset"
        case .replayedSignature: "this admin signature was already used; sign the request again with a new timestamp"
        case .requestTimeout(let seconds): "the request body did not arrive within \(seconds) s"
        }
    }

    public var retryAfterSeconds: Int? {
        switch self {
        case .rateLimited(let seconds), .storeUnavailable(let seconds): seconds
        default: nil
        }
    }
}

/// An HTTP answer, independent of the server framework.
public struct IngestResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.map { "\($0.0)=\($0.1)" } == rhs.headers.map { "\($0.0)=\($0.1)" }
    }

    public static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> IngestResponse {
        IngestResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }

    public static func error(_ error: RequestError) -> IngestResponse {
        var headers: [(String, String)] = []
        if let seconds = error.retryAfterSeconds { headers.append(("Retry-After", String(seconds))) }
        // clock_skew also says the server's time in the body (the HTTP layer adds `Date` to every
        // answer too), so a client can measure its offset from either.
        var extra = ""
        if case .clockSkew(let serverTime) = error { extra = ",\"server_time\":\(serverTime)" }
        return json(error.status, "{\"error\":{\"code\":\"\(error.code)\",\"message\":\(JSONString.quoted(error.message))\(extra)}}", headers: headers)
    }
}
