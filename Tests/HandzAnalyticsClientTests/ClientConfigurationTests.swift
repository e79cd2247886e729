import Foundation
import HandzAnalyticsClient
import HandzSigning
import Testing

/// The key as `handz-analytics keys create` prints it configures the client; anything the
/// endpoint would refuse is refused here, by a stable code and a message without the secret.
@Suite struct ClientConfigurationTests {
    static let endpoint = URL(string: "http://127.0.0.1:8080")!
    /// Synthetic: 32 bytes 0x00, 0x01, … 0x1f.
    static let bytes = (0..<32).map { UInt8($0) }
    static let hex = Hex.encode(bytes)

    @Test("the id and 64 hex digits of `keys create` give the secret's 32 bytes, in either case")
    func hexSecret() throws {
        let generated = IngestionKey.generate(scopes: [.ingest])
        let configuration = try ClientConfiguration(endpoint: Self.endpoint, keyID: generated.id, secretHex: generated.secretHex, queuePath: "/tmp/q")
        #expect(configuration.secret == generated.secret && configuration.secret.count == 32)
        #expect(configuration.keyID == generated.id)
        let upper = try ClientConfiguration(endpoint: Self.endpoint, keyID: "hzk_0a1b2c3d4e5f", secretHex: Self.hex.uppercased(), queuePath: "/tmp/q")
        #expect(upper.secret == Self.bytes)
    }

    @Test("a secret that is not exactly 64 hex digits is refused, and the message holds none of it", arguments: [
        String(hex.dropLast()), hex + "0", String(hex.dropLast()) + "g", "", "CHANGE_ME",
    ])
    func badSecret(_ secretHex: String) {
        #expect(throws: ClientConfigurationError(.invalidSecret)) {
            _ = try ClientConfiguration(endpoint: Self.endpoint, keyID: "hzk_0a1b2c3d4e5f", secretHex: secretHex, queuePath: "/tmp/q")
        }
        let message = ClientConfigurationError(.invalidSecret).description
        #expect(message.hasPrefix("invalid_secret:"))
        #expect(!message.contains(Self.hex.prefix(8)))
    }

    @Test("a key id the endpoint cannot hold is refused before the secret is read", arguments: ["", "hzk test", String(repeating: "a", count: 65)])
    func badKeyID(_ keyID: String) {
        #expect(throws: ClientConfigurationError(.invalidKeyID)) {
            _ = try ClientConfiguration(endpoint: Self.endpoint, keyID: keyID, secretHex: "not hex", queuePath: "/tmp/q")
        }
    }
}
