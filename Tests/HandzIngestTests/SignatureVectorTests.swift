import Foundation
import HandzSigning
import HandzTestSupport
import Testing

/// The published HZ2 test vectors (`docs/signature-vectors.json`, HandzServer docs, "Signed requests")
/// hold for every signer this project ships: the Swift signer the client and tools use, the server's
/// verifier, `scripts/sign-request.sh` (openssl) and the signing guide's Python signer — so a client
/// written from the guide can check itself before its first request.
@Suite struct SignatureVectorTests {
    struct Vector: Decodable {
        var name: String
        var key_id: String
        var secret_hex: String
        var ts: Int64
        var method: String
        var path: String
        var query: String
        var body_hex: String
        var authorization: String

        var target: RequestSignature.Target { RequestSignature.Target(method: method, path: path, query: query) }
        var secret: [UInt8] { Hex.decode(secret_hex) ?? [] }
        var body: [UInt8] { Hex.decode(body_hex) ?? [] }
    }

    static let vectors: [Vector] = {
        struct File: Decodable { var vectors: [Vector] }
        let url = RepositoryCatalog.root.appendingPathComponent("docs/signature-vectors.json")
        return (try? JSONDecoder().decode(File.self, from: Data(contentsOf: url)).vectors) ?? []
    }()

    /// Writes the vector's body to a file and returns its path.
    func bodyFile(_ vector: Vector, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent("body-\(vector.key_id)")
        try Data(vector.body).write(to: url)
        return url.path
    }

    /// Runs a command with a deadline; its standard output, trimmed.
    func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { process.terminate() }
        #expect(process.terminationStatus == 0, "\(executable) failed")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("there are at least three vectors, over a batch, an admin query and a deletion")
    func published() {
        #expect(Self.vectors.count >= 3)
        #expect(Set(Self.vectors.map(\.method)) == ["POST", "DELETE"])
        #expect(Self.vectors.contains { !$0.query.isEmpty } && Self.vectors.contains { !$0.body.isEmpty })
    }

    @Test("the Swift signer writes each vector's header, and the server's verifier accepts it and nothing else")
    func swiftSignerAndVerifier() throws {
        for vector in Self.vectors {
            let header = RequestSignature.authorization(keyID: vector.key_id, secret: vector.secret, timestamp: vector.ts,
                                                        target: vector.target, body: vector.body)
            #expect(header == vector.authorization, "\(vector.name)")
            let parsed = try #require(RequestSignature.parse(vector.authorization))
            #expect(vector.body.withUnsafeBytes { RequestSignature.isValid(parsed, secret: vector.secret, target: vector.target, body: $0) })
            // One changed body byte, another query, or the secret's text as the key: refused.
            let changed = vector.body.isEmpty ? [UInt8(0)] : [vector.body[0] ^ 1] + vector.body.dropFirst()
            #expect(!changed.withUnsafeBytes { RequestSignature.isValid(parsed, secret: vector.secret, target: vector.target, body: $0) })
            var otherTarget = vector.target
            otherTarget.query += "&x=1"
            #expect(!vector.body.withUnsafeBytes { RequestSignature.isValid(parsed, secret: vector.secret, target: otherTarget, body: $0) })
            #expect(!vector.body.withUnsafeBytes { RequestSignature.isValid(parsed, secret: Array(vector.secret_hex.utf8), target: vector.target, body: $0) })
        }
    }

    @Test("scripts/sign-request.sh (openssl, what send-batch.sh uses) reproduces every vector")
    func shellSigner() throws {
        let directory = try temporaryDirectory("handz-vectors")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = RepositoryCatalog.root.appendingPathComponent("scripts/sign-request.sh").path
        for vector in Self.vectors {
            let sig = try run("/bin/bash", [script, vector.secret_hex, String(vector.ts), vector.method, vector.path, vector.query, try bodyFile(vector, in: directory)])
            #expect(vector.authorization.hasSuffix("sig=\(sig)"), "\(vector.name): \(sig)")
        }
    }

    @Test("the signing guide's Python signer reproduces every vector")
    func pythonSigner() throws {
        let guide = try String(contentsOf: RepositoryCatalog.root.appendingPathComponent("Sources/HandzServer/HandzServer.docc/SignedRequests.md"), encoding: .utf8)
        let marker = try #require(guide.range(of: "<!-- signer: run by SignatureVectorTests on every vector -->"))
        let afterMarker = guide[marker.upperBound...]
        let start = try #require(afterMarker.range(of: "```python\n"))
        let end = try #require(afterMarker[start.upperBound...].range(of: "```"))
        let directory = try temporaryDirectory("handz-vectors")
        defer { try? FileManager.default.removeItem(at: directory) }
        let signer = directory.appendingPathComponent("sign.py")
        try String(afterMarker[start.upperBound..<end.lowerBound]).write(to: signer, atomically: true, encoding: .utf8)
        for vector in Self.vectors {
            let header = try run("/usr/bin/env", ["python3", signer.path, vector.key_id, vector.secret_hex, String(vector.ts), vector.method,
                                                  vector.path, vector.query, try bodyFile(vector, in: directory)])
            #expect(header == vector.authorization, "\(vector.name)")
        }
    }
}
