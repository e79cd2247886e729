import Foundation
import HandzAnalyticsCore
import Hummingbird

/// An optional access log (`serve --access-log FILE`): one JSON line per request with its arrival
/// time, method, route, status and duration — never headers, keys or bodies, and never a path as
/// the client sent it: only the name of a known route (`other` for anything else), so neither a
/// user_id in `/v1/users/{user_id}` nor whatever a scanner puts in a URL reaches the file.
public final class AccessLog: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()

    public init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission)
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteNoPermission) }
        handle.seekToEndOfFile()
        self.handle = handle
    }

    func record(arrivalMs: Int64, method: String, path: String, status: Int, durationMs: Double) {
        let line = "{\"time_ms\":\(arrivalMs),\"method\":\(JSONString.quoted(method)),\"path\":\(JSONString.quoted(path)),"
            + "\"status\":\(status),\"duration_ms\":\(String(format: "%.2f", durationMs))}\n"
        lock.lock()
        handle.write(Data(line.utf8))
        lock.unlock()
    }
}

struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: AccessLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let arrival = Date()
        let started = DispatchTime.now().uptimeNanoseconds
        var status = 500
        defer {
            let path = Self.route(request.uri.path)
            log.record(arrivalMs: Int64(arrival.timeIntervalSince1970 * 1000), method: request.method.rawValue, path: path,
                       status: status, durationMs: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        }
        let response = try await next(request, context)
        status = response.status.code
        return response
    }

    /// The route a path belongs to, as the log writes it.
    static func route(_ path: String) -> String {
        switch path {
        case "/v1/batch", "/v1/admin/reload", "/v1/admin/maintenance", "/v1/client-config", "/health", "/metrics", "/openapi.json": path
        case _ where path.hasPrefix("/v1/users/"): "/v1/users/{user_id}"
        case _ where path.hasPrefix("/v1/deletions/"): "/v1/deletions/{request_id}"
        // The served dashboards (HandzServer docs, "Served dashboards"): their fixed pages by name,
        // a dashboard page by its route; any other path under them is `other` like the rest.
        case "/dashboards", "/dashboards/", "/dashboards/login", "/dashboards/logout", "/dashboards/explore": path
        case _ where path.hasPrefix("/dashboards/d/"): "/dashboards/d/{dashboard}"
        default: "other"
        }
    }
}
