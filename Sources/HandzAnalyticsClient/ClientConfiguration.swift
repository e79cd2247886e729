import Foundation
import HandzAnalyticsCore
import HandzSigning

/// Plan state (CH33 §3.2 `user_state`, CH08 §1).
public enum UserState: String, Sendable, CaseIterable { case guest, free, trial, pro }

/// Connectivity at the time of an event (CH33 §3.2 `network_state`).
public enum NetworkState: String, Sendable, CaseIterable { case online, offline, flaky }

/// Where the client reads the global properties of CH33 §3.2 from. Injected so tests (and the
/// app) decide; on iOS these come from Bundle, UIDevice, Locale, TimeZone and NWPathMonitor.
public protocol DeviceContextProvider: Sendable {
    var appVersion: String { get }
    var buildNumber: String { get }
    var osVersion: String { get }
    var deviceModel: String { get }
    var locale: String { get }
    var timeZone: String { get }
    var networkState: NetworkState { get }
    var userState: UserState { get }
}

/// A fixed context, for tests, tools and `handz-analytics send`.
public struct StaticDeviceContext: DeviceContextProvider {
    public var appVersion = "1.4.2"
    public var buildNumber = "418"
    public var osVersion = "iOS 18.6"
    public var deviceModel = "iPhone15,2"
    public var locale = "en_US"
    public var timeZone = "UTC"
    public var networkState = NetworkState.online
    public var userState = UserState.guest

    public init() {}
}

/// Everything the client can be told. Defaults follow CH33 §9 and CH33-P7.
///
/// The key is the pair `handz-analytics keys create --scope ingest` prints: its id (`hzk_…`) and
/// its secret as 64 hex digits. Pass them as printed to ``init(endpoint:keyID:secretHex:queuePath:)``.
/// Ship only an `ingest` key in an app: it can send events and read the client settings, nothing else.
public struct ClientConfiguration: Sendable {
    /// The ingestion endpoint's base URL (`POST <endpoint>/v1/batch`).
    public var endpoint: URL
    /// The ingestion key's id, `hzk_` and 12 hex digits, sent in every request's signature.
    public var keyID: String
    /// The key's 32-byte HMAC secret; it signs every request and is never sent.
    public var secret: [UInt8]
    /// The queue's SQLite file.
    public var queuePath: String

    /// Queue cap (CH33-P7): 1,000 events or 5 MB, whichever comes first; the oldest go first.
    public var maxQueuedEvents = 1_000
    public var maxQueuedBytes = 5_000_000
    /// One request carries at most this many events and bytes (before compression).
    public var maxBatchEvents = 100
    public var maxBatchBytes = 500_000
    /// Upload when this many events are queued, and at least this often.
    public var flushThreshold = 30
    public var flushInterval: TimeInterval = 30
    /// Tracked events reach disk within this delay (the caller never waits for the disk).
    public var commitInterval: TimeInterval = 0.05
    /// A new session starts after the app was in the background longer than this.
    public var sessionTimeout: TimeInterval = 30 * 60
    /// Events older than this expire unsent (counted).
    public var maxEventAge: TimeInterval = 30 * 86_400
    /// Exponential backoff with full jitter, base and cap, in seconds.
    public var backoffBase: TimeInterval = 1
    public var backoffCap: TimeInterval = 600
    public var requestTimeout: TimeInterval = 30
    /// How often the server's settings (`GET /v1/client-config`) are fetched again, at most; a
    /// fetch happens only when the client is about to upload (or is switched off by the server).
    public var settingsRefreshInterval: TimeInterval = 3_600
    /// The catalog the app's typed events were generated from, when the app generates its own
    /// (`handz-analytics codegen swift --for-app`: pass `AppAnalyticsCatalog.catalog`). Events are
    /// validated against it on the device and sent with its version (`catalog_version`), which the
    /// server validates them against. Nil: the catalog this package was built with.
    public var catalog: Catalog?

    /// A configuration with the secret as bytes. Prefer ``init(endpoint:keyID:secretHex:queuePath:)``,
    /// which takes the key as `keys create` prints it and checks it.
    public init(endpoint: URL, keyID: String, secret: [UInt8], queuePath: String) {
        self.endpoint = endpoint
        self.keyID = keyID
        self.secret = secret
        self.queuePath = queuePath
    }

    /// A configuration with the key as `handz-analytics keys create` prints it: the id and the
    /// secret's 64 hex digits (either case). Throws ``ClientConfigurationError`` for an id or a
    /// secret the endpoint would refuse, before anything is queued; the error never holds the secret.
    public init(endpoint: URL, keyID: String, secretHex: String, queuePath: String) throws(ClientConfigurationError) {
        guard IngestionKey.isValidID(keyID) else { throw ClientConfigurationError(.invalidKeyID) }
        guard let secret = IngestionKey.secret(fromHex: secretHex) else { throw ClientConfigurationError(.invalidSecret) }
        self.init(endpoint: endpoint, keyID: keyID, secret: secret, queuePath: queuePath)
    }
}

/// A key the client cannot use, found when it is configured. The message names what is wrong,
/// never the secret or any part of it.
public struct ClientConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The key id is empty, longer than 64 characters, or has characters other than
        /// letters, digits, `_` and `-`.
        case invalidKeyID = "invalid_key_id"
        /// The secret is not exactly 64 hex digits.
        case invalidSecret = "invalid_secret"
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .invalidKeyID: "\(code.rawValue): the key id is not one `handz-analytics keys create` prints (hzk_ and 12 hex digits)"
        case .invalidSecret: "\(code.rawValue): the secret must be exactly \(IngestionKey.secretHexLength) hex digits, as `handz-analytics keys create` prints it"
        }
    }
}
