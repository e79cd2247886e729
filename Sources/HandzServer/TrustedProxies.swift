import NIOCore

/// The peers whose `X-Forwarded-Proto` the server believes (issue 37 §1): a TLS reverse proxy in
/// front of `serve` says the browser's connection was HTTPS, and the dashboards' session cookie
/// is then marked `Secure`. From any other peer the header is ignored: a client talking to the
/// server directly over plain HTTP cannot claim otherwise.
///
/// Only that one header is taken from a proxy. The server uses no client address at all: its
/// rate limits are per ingestion key and per `install_id`, the sign-in limit is per server, and
/// no address is logged or stored (an IP address is personal data; *Privacy*). So a proxy in
/// front changes nothing about who is limited, and `X-Forwarded-For` is never read.
///
/// Addresses are compared exactly, as the kernel reports the peer (`127.0.0.1`, `::1`, or a
/// proxy's own address); the default trusts the loopback addresses, i.e. a proxy on the same host.
public struct TrustedProxies: Sendable, Equatable {
    public let addresses: Set<String>

    public static let loopback = TrustedProxies(["127.0.0.1", "::1"])
    public static let none = TrustedProxies([])

    public init(_ addresses: some Sequence<String>) {
        self.addresses = Set(addresses.map { $0.lowercased() })
    }

    /// Whether the connection's peer is a trusted proxy. An IPv4 peer on an IPv6 socket
    /// (`::ffff:127.0.0.1`) counts as its IPv4 address.
    public func trusts(_ peer: SocketAddress?) -> Bool {
        guard let address = peer?.ipAddress?.lowercased() else { return false }
        let mappedPrefix = "::ffff:"
        return addresses.contains(address) || (address.hasPrefix(mappedPrefix) && addresses.contains(String(address.dropFirst(mappedPrefix.count))))
    }
}
