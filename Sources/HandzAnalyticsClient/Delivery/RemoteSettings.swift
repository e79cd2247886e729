import Foundation

/// The server's settings for its clients (`GET /v1/client-config`, HandzServer docs, "The ingestion API"), as this client
/// applies them: never more often than one upload a second, never more events per batch than its
/// own `maxBatchEvents`, and the queue caps untouched — so a bad or hostile config cannot make the
/// fleet send more or store more. Unknown keys are ignored (a newer server may add some).
struct RemoteSettings: Equatable, Sendable {
    /// The most often a server may ask the client to flush.
    static let minimumFlushInterval: TimeInterval = 1

    var flushInterval: TimeInterval
    var maxBatchEvents: Int
    /// The server asks apps built with this catalog version to stop (a broken release).
    var disabled: Bool

    /// The local configuration's values: what applies until (and unless) the server says otherwise.
    init(local configuration: ClientConfiguration) {
        flushInterval = configuration.flushInterval
        maxBatchEvents = configuration.maxBatchEvents
        disabled = false
    }

    /// `json` (the endpoint's body) applied over the local configuration, bounded; nil when the
    /// body is not such an object (the previous settings then stay).
    init?(json: Data, local configuration: ClientConfiguration, catalogVersion: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { return nil }
        self.init(local: configuration)
        if let seconds = (object["flush_interval_seconds"] as? NSNumber)?.doubleValue, seconds.isFinite {
            flushInterval = min(max(seconds, Self.minimumFlushInterval), 86_400)
        }
        if let count = (object["max_batch_events"] as? NSNumber)?.intValue {
            maxBatchEvents = min(max(count, 1), configuration.maxBatchEvents)
        }
        if let versions = object["disabled_catalog_versions"] as? [String] {
            disabled = versions.contains(catalogVersion)
        }
    }
}
