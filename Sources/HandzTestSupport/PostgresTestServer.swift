import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server on a loopback port, from the Debian binaries (`postgresql`
/// package; `scripts/test.sh` installs it). One per test process, started on first use, each test
/// taking its own database; stopped when the process exits.
public final class PostgresTestServer: @unchecked Sendable {
    public private(set) var port = 0
    let directory: URL
    let binaries: URL
    let runAsPostgres: Bool

    /// The shared server, or the reason it could not start.
    /// The cluster's data directory (tests look for bytes in its files).
    public var dataDirectory: URL { directory.appendingPathComponent("data") }

    public static let shared: Result<PostgresTestServer, StartFailure> = {
        do { return .success(try PostgresTestServer()) } catch let error as StartFailure { return .failure(error) } catch {
            return .failure(StartFailure(reason: "\(error)"))
        }
    }()

    public struct StartFailure: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "PostgreSQL test server unavailable: \(reason)" }
    }

    /// Starts a server of its own (tests use `shared`; a test of the server itself starts one).
    /// With `tls`, the server also accepts TLS with that certificate and key (plain connections
    /// from loopback are still allowed: what the client asks for decides).
    public init(tls: (certificate: String, privateKey: String)? = nil) throws {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        guard let version = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.sorted().last else {
            throw StartFailure(reason: "no /usr/lib/postgresql (apt-get install postgresql)")
        }
        binaries = root.appendingPathComponent(version).appendingPathComponent("bin")
        runAsPostgres = getuid() == 0
        directory = URL(fileURLWithPath: "/tmp/handz-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if runAsPostgres { try run(["/bin/chown", "postgres", directory.path], asPostgres: false) }
        try run([binaries.appendingPathComponent("initdb").path, "-D", directory.appendingPathComponent("data").path, "-A", "trust", "-U", "postgres", "--no-sync"])
        var tlsOptions = ""
        if let tls {
            // The key must belong to the server's user and be readable by it alone.
            let certificate = directory.appendingPathComponent("server.pem").path, key = directory.appendingPathComponent("server.key").path
            try FileManager.default.copyItem(atPath: tls.certificate, toPath: certificate)
            try FileManager.default.copyItem(atPath: tls.privateKey, toPath: key)
            chmod(key, 0o600)
            if runAsPostgres { try run(["/bin/chown", "postgres", certificate, key], asPostgres: false) }
            tlsOptions = " -c ssl=on -c ssl_cert_file=\(certificate) -c ssl_key_file=\(key)"
        }
        // A port the kernel says is free now — not a random one: tests running beside this one
        // hold a thousand loopback connections whose local ports come from the same range (a
        // random port collided once in CI). A port taken between the check and the start is
        // retried with another, at most three times.
        var failure: (any Error)?
        for _ in 0..<3 {
            port = LoopbackSockets.freePort()
            do {
                try run([binaries.appendingPathComponent("pg_ctl").path, "-D", directory.appendingPathComponent("data").path, "-w", "-t", "60",
                         "-o", "-h 127.0.0.1 -p \(port) -k \(directory.path) -c fsync=off -c max_connections=200" + tlsOptions, "-l", directory.appendingPathComponent("log").path, "start"])
                failure = nil
                break
            } catch {
                failure = error
                _ = try? run([binaries.appendingPathComponent("pg_ctl").path, "-D", directory.appendingPathComponent("data").path, "-m", "immediate", "stop"])
            }
        }
        if let failure {
            // The server's own log says why (the port, descriptors, shared memory); its last
            // lines go into the failure so CI shows them.
            let log = (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            throw StartFailure(reason: "\(failure); server log: \(log.split(separator: "\n").suffix(4).joined(separator: " | "))")
        }
        atexit { PostgresTestServer.stopShared() }
    }

    static func stopShared() {
        if case .success(let server) = shared { server.stop() }
    }

    public func stop() {
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

    /// Runs a command to completion as a ``ChildProcess`` (`posix_spawn`, not Foundation's
    /// `Process`: `pg_ctl start` daemonizes, and on Linux `waitUntilExit` was seen to hang with the
    /// wrapper left a zombie). Output goes to a file, not a pipe, because the daemon inherits the
    /// descriptors and a pipe would never reach end-of-file.
    @discardableResult
    func run(_ arguments: [String], asPostgres: Bool? = nil) throws -> String {
        let wrap = asPostgres ?? runAsPostgres
        // As postgres, from the server's own directory: the test's working directory may be one
        // postgres cannot enter (a clone in a private `mktemp -d`), and pg_ctl refuses to start
        // from there ("could not change directory").
        let argv = wrap ? ["/usr/sbin/runuser", "-u", "postgres", "--", "/usr/bin/env", "-C", directory.path] + arguments : arguments
        let outputPath = directory.appendingPathComponent("cmd-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        // Nothing but the output file is inherited (``ChildProcess``): tests beside this one hold
        // a thousand loopback sockets, and a postmaster that inherits them counts them against
        // `max_files_per_process` and refuses to start ("insufficient file descriptors", CI on
        // 2026-11-25); runuser's PAM session caps descriptors at 1,024 as well.
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: argv[0], arguments: Array(argv.dropFirst()), standardOutput: .file(outputPath))
        } catch {
            throw StartFailure(reason: "\(error)")
        }
        child.waitUntilExit()
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        guard child.succeeded else {
            let code = child.terminationReason == .exit ? child.terminationStatus : -1
            throw StartFailure(reason: "\(URL(fileURLWithPath: arguments[0]).lastPathComponent) exited \(code): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
