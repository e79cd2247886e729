import Foundation

/// A value behind a lock, for the few pieces of shared mutable state in the endpoint (key ring,
/// catalog, rate buckets, in-flight count). Portable to every platform the package declares.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    @discardableResult
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
