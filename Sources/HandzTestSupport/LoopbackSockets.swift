import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Raw TCP sockets on 127.0.0.1 for tests: listeners on a kernel-chosen free port, free ports for
/// servers the tests start, and plain client connections. Every socket is close-on-exec, so processes the tests spawn
/// (a PostgreSQL server, the project's own server) do not inherit them. One place for the `sockaddr_in`
/// dance the client, server and PostgreSQL tests all need.
public enum LoopbackSockets {
    static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel chose free: (descriptor, port).
    public static func listening(backlog: Int32 = 16) -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = address(port: 0)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listen(fd, backlog)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A loopback port nobody uses right now (listened on, then released) — for a server the test
    /// starts; a port taken in between is the caller's to retry.
    public static func freePort() -> Int {
        let (fd, port) = listening()
        close(fd)
        return port
    }

    /// A blocking connection to 127.0.0.1:`port`, or -1.
    public static func connect(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); return -1 }
        return fd
    }
}
