import Foundation
import HandzTestSupport
import Testing

/// `serve --access-log FILE` writes one JSON line per request and names routes, never paths as the
/// client sent them (HandzServer docs, "Operations"): a user id, a deletion id, a dashboard's
/// name or whatever a scanner puts in a URL never reaches the file.
@Suite struct AccessLogTests {
    @Test("the access log names each route and never writes a path as sent")
    func namesRoutes() throws {
        let directory = try temporaryDirectory("handz-access-log")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logPath = directory.appendingPathComponent("access.log").path
        let server = try ServerProcess(directory: directory, arguments: ["--access-log", logPath])
        let userID = "0b6f3c1e-7a52-4d7e-9c1f-2f6c1d9e8a41"
        let sent: [(method: String, target: String, route: String)] = [
            ("GET", "/health", "/health"),
            ("DELETE", "/v1/users/\(userID)", "/v1/users/{user_id}"),
            ("GET", "/v1/deletions/\(userID)", "/v1/deletions/{request_id}"),
            ("GET", "/dashboards/login", "/dashboards/login"),
            ("GET", "/dashboards/", "/dashboards/"),
            ("GET", "/dashboards/explore?steps=app_opened", "/dashboards/explore"),
            ("GET", "/dashboards/d/activation_onboarding?range=7d", "/dashboards/d/{dashboard}"),
            ("GET", "/dashboards/synthetic.person%40example.com", "other"),
            ("GET", "/wp-login.php?user=synthetic.person@example.com", "other"),
        ]
        for request in sent {
            _ = try DashboardSecurityTests.exchange(port: server.port, request.method, request.target)
        }
        #expect(server.stop() == 0)
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == sent.count)
        for (line, request) in zip(lines, sent) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["path"] as? String == request.route, "\(request.target)")
            #expect(object["method"] as? String == request.method)
            #expect(object["status"] is Int && object["time_ms"] is NSNumber && object["duration_ms"] is NSNumber)
        }
        let text = lines.joined(separator: "\n")
        for secret in [userID, "activation_onboarding", "example.com", "wp-login", "steps=", "range="] {
            #expect(!text.contains(secret), "\(secret)")
        }
    }
}
