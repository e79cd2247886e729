import HandzAnalyticsCore

/// Whole-request failures of the ingestion API, each with a stable code and HTTP status. The
/// JSON body is `{"error": {"code": "...", "message": "..."}}` and never echoes payload values.
public enum RequestError: Error, Sendable, Equatable {
    case malformedEnvelope(String)
    case unauthorized(String)
    case forbidden(String)
    case payloadTooLarge(String)
    case unsupportedMediaType(String)
    case rateLimited(retryAfterSeconds: Int)
    case storeUnavailable(retryAfterSeconds: Int)
    case notFound
    case catalogInvalid(String)

    public var code: String {
        switch self {
        case .malformedEnvelope: "malformed_envelope"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .payloadTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .rateLimited: "rate_limited"
        case .storeUnavailable: "store_unavailable"
        case .notFound: "not_found"
        case .catalogInvalid: "catalog_invalid"
        }
    }

    public var status: Int {
        switch self {
        case .malformedEnvelope: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .rateLimited: 429
        case .storeUnavailable: 503
        case .notFound: 404
        case .catalogInvalid: 422
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
        return json(error.status, "{\"error\":{\"code\":\"\(error.code)\",\"message\":\(JSONString.quoted(error.message))}}", headers: headers)
    }
}
