import Foundation
import Hummingbird

/// An optional access log (`serve --access-log FILE`): one JSON line per request with its arrival
/// time, method, path, status and duration — never headers, keys or bodies.
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
        let line = String(format: "{\"time_ms\":%lld,\"method\":\"%@\",\"path\":\"%@\",\"status\":%d,\"duration_ms\":%.2f}\n",
                          arrivalMs, method, path, status, durationMs)
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
            // Only the route's path, without query; user ids in /v1/users/{id} are not logged.
            let path = request.uri.path.hasPrefix("/v1/users/") ? "/v1/users/{user_id}" : request.uri.path
            log.record(arrivalMs: Int64(arrival.timeIntervalSince1970 * 1000), method: request.method.rawValue, path: path,
                       status: status, durationMs: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        }
        let response = try await next(request, context)
        status = response.status.code
        return response
    }
}
