import Foundation

/// A value behind a lock: the package's one primitive for the few pieces of shared mutable state
/// that are read and written from several threads (the endpoint's key ring, catalog and rate
/// buckets; the client's upload outcome; the PostgreSQL store's health flag). Portable to every
/// platform the package declares, and in the core so the client, which must not depend on the
/// server's modules, uses the same one.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock; what it returns is returned.
    @discardableResult
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// The value now.
    public func get() -> Value { withLock { $0 } }

    /// Replaces the value.
    public func set(_ newValue: Value) { withLock { $0 = newValue } }
}
