/// Where `GET /metrics` is served (`serve --metrics-listen`). Metrics describe the whole fleet's
/// traffic (rates, rejection codes) and are no business of the phones that reach the ingest port,
/// so by default they are only ever reachable from the machine itself:
/// - ingest on a loopback address (development, a node behind a local proxy): on the ingest port;
/// - ingest on any other address: on `127.0.0.1:9464` (Prometheus's exporter port range);
/// - `--metrics-listen HOST:PORT`: there; `--metrics-listen ingest`: on the ingest port, whatever
///   its address (the operator's explicit choice).
public enum MetricsPlacement: Sendable, Equatable {
    case ingestPort
    case address(host: String, port: Int)

    public static let defaultPort = 9464

    /// The placement for `option` (nil: the default) when ingest listens on `ingestHost`; nil
    /// when `option` is not `ingest` or `HOST:PORT` with a port 0–65535.
    public static func resolve(_ option: String?, ingestHost: String) -> MetricsPlacement? {
        guard let option else {
            return isLoopback(ingestHost) ? .ingestPort : .address(host: "127.0.0.1", port: defaultPort)
        }
        if option == "ingest" { return .ingestPort }
        guard let colon = option.lastIndex(of: ":"), let port = Int(option[option.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        let host = String(option[..<colon])
        guard !host.isEmpty else { return nil }
        return .address(host: host, port: port)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
