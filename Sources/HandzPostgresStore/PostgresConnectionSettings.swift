import Foundation
import HandzStore
import PostgresNIO

/// Where and how the PostgreSQL store connects, read from a `postgres://` URL the way libpq reads
/// one (issue 37 §2): `postgres://user@host:port/database?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem`.
///
/// **`sslmode`** (libpq's names and meanings; `PGSSLMODE` when the URL has none):
/// - `disable`: no TLS.
/// - `prefer` (the default, as libpq's): TLS when the server offers it, else plain; the
///   certificate is not checked, so it keeps out only a passive listener.
/// - `require`: TLS or no connection; the certificate is not checked.
/// - `verify-ca`: TLS, and the certificate must chain to a trusted root.
/// - `verify-full`: as `verify-ca`, and the certificate must name the host connected to. The one
///   to use across any network you do not own.
///
/// **`sslrootcert`** (`PGSSLROOTCERT`): a PEM file of the roots to trust for `verify-ca` and
/// `verify-full` (a managed database's CA bundle); without it, the system's trust store.
///
/// The password comes from the URL or, better, `PGPASSWORD` (a URL shows in `ps` and shell
/// history). No part of the password ever reaches a message (``description``, the errors).
public struct PostgresConnectionSettings: Sendable, Equatable, CustomStringConvertible {
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String?
    public var sslMode: SSLMode
    public var sslRootCertificate: String?

    /// Reads `url`, with libpq's variables for what it leaves out (`PGPASSWORD`, `PGSSLMODE`,
    /// `PGSSLROOTCERT`). Throws ``StoreError/unavailable(_:)`` naming what is wrong, never a value
    /// but the mode's.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: url), components.scheme == "postgres" || components.scheme == "postgresql",
              let host = components.host, !host.isEmpty else { throw StoreError.unavailable("not a postgres:// URL") }
        self.host = host
        port = components.port ?? 5432
        user = components.user ?? "postgres"
        password = components.password ?? environment["PGPASSWORD"]
        let path = String(components.path.dropFirst())
        database = path.isEmpty ? nil : path
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        for name in query.keys where !["sslmode", "sslrootcert"].contains(name) {
            throw StoreError.unavailable("the postgres:// URL has a parameter this store does not read: \(name) (it reads sslmode and sslrootcert)")
        }
        let mode = query["sslmode"] ?? environment["PGSSLMODE"] ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw StoreError.unavailable("sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.sslMode = sslMode
        sslRootCertificate = query["sslrootcert"] ?? environment["PGSSLROOTCERT"]
        if let sslRootCertificate, !FileManager.default.isReadableFile(atPath: sslRootCertificate) {
            throw StoreError.unavailable("sslrootcert: cannot read \(sslRootCertificate)")
        }
    }

    /// The TLS configuration the mode asks for; nil for `disable`.
    func tlsConfiguration() -> TLSConfiguration? {
        guard sslMode != .disable else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let sslRootCertificate, sslMode == .verifyCA || sslMode == .verifyFull {
            configuration.trustRoots = .file(sslRootCertificate)
        }
        return configuration
    }

    /// The pool's configuration (the store's connections).
    func clientConfiguration() -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = tlsConfiguration().map { sslMode == .prefer ? .prefer($0) : .require($0) } ?? .disable
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// One connection's configuration: the store's first connection is made alone, once, so a
    /// failure is reported with its cause at once (the pool would retry it with backoff forever).
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var tls = PostgresConnection.Configuration.TLS.disable
        if let configuration = tlsConfiguration() {
            let context = try NIOSSLContext(configuration: configuration)
            tls = sslMode == .prefer ? .prefer(context) : .require(context)
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// `postgres://user@host:port/database?sslmode=…`: for messages; never the password.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database ?? "")?sslmode=\(sslMode.rawValue)"
    }

    /// Why a connection failed, in words an operator can act on: PostgresNIO's error code, the
    /// server's own message (which names the role or database, never a password), and the
    /// underlying network or TLS error. PostgresNIO's own description is deliberately opaque.
    static func cause(of error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        var parts = ["\(error.code)"]
        if let message = error.serverInfo?[.message] { parts.append("server: \(message)") }
        if let underlying = error.underlying { parts.append(String(describing: underlying)) }
        return parts.joined(separator: "; ")
    }
}
