/// Request limits (CH33 §10 "rate-limit ingestion to prevent DoS"). All configurable from
/// `handz-analytics serve`.
public struct IngestLimits: Sendable {
    /// Largest body accepted as sent (compressed or not): 413 above it.
    public var maxBodyBytes = 1 << 20
    /// Largest body after decompression: 413 above it (a gzip bomb stops here).
    public var maxDecompressedBytes = 5 << 20
    /// Most events in one batch: 413 above it.
    public var maxEventsPerBatch = 1_000
    /// Requests processed at once; more are answered 429 at once (memory stays bounded by
    /// this times the decompressed limit).
    public var maxConcurrentRequests = 64

    public init() {}
}

/// Token-bucket rate limits, in events per second with a burst allowance.
public struct RateLimits: Sendable {
    /// Per ingestion key: a whole app's traffic.
    public var perKeyEventsPerSecond: Double = 200_000
    public var perKeyBurst: Double = 400_000
    /// Per install_id: one device. A real device sends a few events a minute.
    public var perInstallEventsPerSecond: Double = 50
    public var perInstallBurst: Double = 5_000
    /// Buckets kept for installs (memory is fixed: installs hash into these slots).
    public var installBuckets = 1 << 16

    public init() {}
}
