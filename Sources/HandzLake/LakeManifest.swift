import HandzAnalyticsCore

/// `_manifest.json` of one partition: what the data file holds and its checksum, so a reader
/// (or the next export) can tell a complete, unchanged partition without reading it.
/// Deterministic: no export time, so re-exporting unchanged events gives the same bytes.
public struct LakeManifest: Sendable, Equatable {
    public static let formatVersion = 1

    public var partition: String
    public var receivedFromMs: Int64
    public var receivedToMs: Int64
    public var rows: Int
    public var bytes: Int
    public var sha256: String

    public var json: String {
        """
        {"format":"handz-lake","format_version":\(Self.formatVersion),"partition":\(JSONString.quoted(partition)),\
        "received_from_ms":\(receivedFromMs),"received_to_ms":\(receivedToMs),\
        "files":[{"path":\(JSONString.quoted(LakePartition.dataFile)),"rows":\(rows),"bytes":\(bytes),"sha256":\(JSONString.quoted(sha256)),"compression":"gzip","format":"ndjson"}],\
        "rows":\(rows)}

        """
    }
}
