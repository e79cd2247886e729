import Foundation

/// A throwaway PostgreSQL server on a loopback port, from the Debian binaries (`postgresql`
/// package; `scripts/test.sh` installs it). One per test process, started on first use, each test
/// taking its own database; stopped when the process exits.
public final class PostgresTestServer: @unchecked Sendable {
    public let port: Int
    let directory: URL
    let binaries: URL
    let runAsPostgres: Bool

    /// The shared server, or the reason it could not start.
    public static let shared: Result<PostgresTestServer, StartFailure> = {
        do { return .success(try PostgresTestServer()) } catch let error as StartFailure { return .failure(error) } catch {
            return .failure(StartFailure(reason: "\(error)"))
        }
    }()

    public struct StartFailure: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "PostgreSQL test server unavailable: \(reason)" }
    }

    init() throws {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        guard let version = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.sorted().last else {
            throw StartFailure(reason: "no /usr/lib/postgresql (apt-get install postgresql)")
        }
        binaries = root.appendingPathComponent(version).appendingPathComponent("bin")
        runAsPostgres = getuid() == 0
        directory = URL(fileURLWithPath: "/tmp/handz-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        port = Int.random(in: 40_000...59_000)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if runAsPostgres { try run(["/bin/chown", "postgres", directory.path], asPostgres: false) }
        try run([binaries.appendingPathComponent("initdb").path, "-D", directory.appendingPathComponent("data").path, "-A", "trust", "-U", "postgres", "--no-sync"])
        try run([binaries.appendingPathComponent("pg_ctl").path, "-D", directory.appendingPathComponent("data").path, "-w", "-t", "60",
                 "-o", "-h 127.0.0.1 -p \(port) -k \(directory.path) -c fsync=off -c max_connections=200", "-l", directory.appendingPathComponent("log").path, "start"])
        atexit { PostgresTestServer.stopShared() }
    }

    static func stopShared() {
        if case .success(let server) = shared { server.stop() }
    }

    func stop() {
        try? run([binaries.appendingPathComponent("pg_ctl").path, "-D", directory.appendingPathComponent("data").path, "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new empty database; returns its URL.
    public func makeDatabase() throws -> String {
        let name = "handz_test_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try run([binaries.appendingPathComponent("createdb").path, "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name])
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Runs a SQL statement with psql and returns its unaligned output.
    public func psql(_ url: String, _ sql: String) throws -> String {
        let database = String(url.split(separator: "/").last ?? "")
        return try run(["/usr/bin/psql", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-At", "-c", sql], asPostgres: false)
    }

    @discardableResult
    func run(_ arguments: [String], asPostgres: Bool? = nil) throws -> String {
        let process = Process()
        let wrap = asPostgres ?? runAsPostgres
        process.executableURL = URL(fileURLWithPath: wrap ? "/usr/sbin/runuser" : arguments[0])
        process.arguments = wrap ? ["-u", "postgres", "--"] + arguments : Array(arguments.dropFirst())
        // Output goes to a file, not a pipe: `pg_ctl start` leaves the server holding its
        // descriptors, and a pipe would never reach end-of-file.
        let outputPath = directory.appendingPathComponent("cmd-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: outputPath.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputPath)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        let data = (try? Data(contentsOf: outputPath)) ?? Data()
        try? FileManager.default.removeItem(at: outputPath)
        guard process.terminationStatus == 0 else {
            throw StartFailure(reason: "\(URL(fileURLWithPath: arguments[0]).lastPathComponent) exited \(process.terminationStatus): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
