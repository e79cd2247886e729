import Foundation

/// A certificate authority made for one test with `openssl` (Debian's), and a server
/// certificate it signed for `localhost` and `127.0.0.1`: for tests of TLS on loopback. Nothing
/// here is trusted anywhere else; the directory is removed by the caller.
public struct ThrowawayCertificates: Sendable {
    public let directory: URL
    /// The authority's certificate (PEM): what a client trusts.
    public var authority: String { directory.appendingPathComponent("ca.pem").path }
    /// The server's certificate and private key (PEM).
    public var certificate: String { directory.appendingPathComponent("server.pem").path }
    public var privateKey: String { directory.appendingPathComponent("server.key").path }
    /// Another authority's certificate, which did not sign the server's: a client trusting only
    /// it must refuse the server.
    public var otherAuthority: String { directory.appendingPathComponent("other-ca.pem").path }

    public init() throws {
        directory = try temporaryDirectory("handz-tls")
        let openssl = "/usr/bin/openssl"
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".write(toFile: file("ext.cnf"), atomically: true, encoding: .utf8)
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Handz test CA", "-keyout", file("ca.key"), "-out", file("ca.pem")],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", file("server.key"), "-out", file("server.csr")],
            ["x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial", "-days", "2",
             "-extfile", file("ext.cnf"), "-out", file("server.pem")],
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Another CA", "-keyout", file("other-ca.key"), "-out", file("other-ca.pem")],
        ] {
            let process = try ChildProcess(executable: openssl, arguments: arguments, standardError: .nullDevice)
            guard process.wait(timeout: 60), process.succeeded else {
                process.terminate(grace: 1)
                throw Failure(step: arguments.prefix(2).joined(separator: " "))
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let step: String
        public var description: String { "openssl \(step) failed" }
    }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}
