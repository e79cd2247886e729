/// One open-addressing hash table for every name the validator looks up — property names, event
/// names, time zones and each closed set of values — each in its own namespace. Built once from
/// the catalog; probed with raw input bytes, so no `String` is made on the hot path.
final class SymbolTable: @unchecked Sendable {
    /// The table's memory, as plain pointers the validator copies into its run.
    let raw: RawSymbolTable
    private let allocations: [UnsafeMutableRawPointer]

    /// `entries`: (namespace, name, value). A (namespace, name) pair must be unique.
    init(_ entries: [(namespace: Int, key: String, value: Int)]) {
        var capacity = 16
        while capacity < entries.count * 2 { capacity <<= 1 }
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        slots.initialize(repeating: -1, count: capacity)
        let namespaces = UnsafeMutablePointer<Int32>.allocate(capacity: max(entries.count, 1))
        let values = UnsafeMutablePointer<Int32>.allocate(capacity: max(entries.count, 1))
        let offsets = UnsafeMutablePointer<Int32>.allocate(capacity: entries.count + 1)
        let totalBytes = entries.reduce(0) { $0 + $1.key.utf8.count }
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: totalBytes + 16)
        bytes.initialize(repeating: 0, count: totalBytes + 16)
        var offset = 0
        offsets[0] = 0
        for (index, entry) in entries.enumerated() {
            let utf8 = Array(entry.key.utf8)
            for (k, byte) in utf8.enumerated() { bytes[offset + k] = byte }
            offset += utf8.count
            offsets[index + 1] = Int32(offset)
            namespaces[index] = Int32(entry.namespace)
            values[index] = Int32(entry.value)
            var slot = utf8.withUnsafeBytes { RawSymbolTable.hash(entry.namespace, $0.baseAddress ?? UnsafeRawPointer(bytes), utf8.count) } & (capacity - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(index)
        }
        raw = RawSymbolTable(slots: slots, mask: capacity - 1, namespaces: namespaces, offsets: offsets, values: values, bytes: UnsafePointer(bytes))
        allocations = [UnsafeMutableRawPointer(slots), UnsafeMutableRawPointer(namespaces), UnsafeMutableRawPointer(values),
                       UnsafeMutableRawPointer(offsets), UnsafeMutableRawPointer(bytes)]
    }

    deinit {
        for allocation in allocations { allocation.deallocate() }
    }

    func lookup(_ namespace: Int, _ key: String) -> Int {
        var key = key
        return key.withUTF8 { buffer in
            var empty: UInt8 = 0
            return withUnsafePointer(to: &empty) { fallback in
                raw.lookup(namespace, buffer.baseAddress.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(fallback), buffer.count)
            }
        }
    }
}

/// The plain-pointer view of a `SymbolTable`; valid while the table lives.
struct RawSymbolTable: @unchecked Sendable {
    let slots: UnsafeMutablePointer<Int32>
    let mask: Int
    let namespaces: UnsafeMutablePointer<Int32>
    let offsets: UnsafeMutablePointer<Int32>
    let values: UnsafeMutablePointer<Int32>
    let bytes: UnsafePointer<UInt8>

    /// A cheap hash of the namespace, the length and four sampled bytes: names in one catalog
    /// differ early, late, in the middle or in length.
    @inline(__always)
    static func hash(_ namespace: Int, _ p: UnsafeRawPointer, _ n: Int) -> Int {
        var h = (n &+ namespace &* 0x3D) &* 0x9E37_79B9
        if n > 0 {
            h = (h ^ Int(p.load(fromByteOffset: 0, as: UInt8.self))) &* 0x0100_0193
            h = (h ^ Int(p.load(fromByteOffset: n - 1, as: UInt8.self))) &* 0x0100_0193
            h = (h ^ Int(p.load(fromByteOffset: n >> 1, as: UInt8.self))) &* 0x0100_0193
            h = (h ^ Int(p.load(fromByteOffset: (n * 3) >> 2, as: UInt8.self))) &* 0x0100_0193
        }
        return h ^ (h >> 16)
    }

    /// The value of (`namespace`, the `n` bytes at `p`), or -1.
    @inline(__always)
    func lookup(_ namespace: Int, _ p: UnsafeRawPointer, _ n: Int) -> Int {
        let entry = entry(namespace, p, n)
        return entry < 0 ? -1 : Int(values[entry])
    }

    /// The entry holding (`namespace`, the `n` bytes at `p`), or -1.
    @inline(__always)
    func entry(_ namespace: Int, _ p: UnsafeRawPointer, _ n: Int) -> Int {
        var slot = Self.hash(namespace, p, n) & mask
        while true {
            let entry = Int(slots[slot])
            if entry < 0 { return -1 }
            if Int(namespaces[entry]) == namespace, entryMatches(entry, p, n) { return entry }
            slot = (slot + 1) & mask
        }
    }

    /// Whether entry `entry`'s name is the `n` bytes at `p` (used to confirm a predicted entry).
    @inline(__always)
    func entryMatches(_ entry: Int, _ p: UnsafeRawPointer, _ n: Int) -> Bool {
        let start = Int(offsets[entry])
        return Int(offsets[entry + 1]) - start == n && bytesEqual(p, UnsafeRawPointer(bytes + start), n)
    }
}

/// Compares `n` bytes a word at a time; the tail is one overlapping word (or half-word), never a
/// byte loop. Both sides must be readable for `max(n, 8)` bytes when `n >= 8`.
@inlinable @inline(__always)
func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    if n >= 8 {
        var i = 0
        while i + 8 < n {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        return a.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
    }
    if n >= 4 {
        return a.loadUnaligned(fromByteOffset: 0, as: UInt32.self) == b.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
            && a.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == b.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
    }
    var i = 0
    while i < n {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}

/// A fixed-size buffer of plain values owned by a class, so compiled tables are read through a
/// pointer with no reference counting or bounds checks on the hot path.
final class FixedBuffer<Element>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>
    let count: Int

    init(_ elements: [Element]) {
        count = elements.count
        pointer = UnsafeMutablePointer<Element>.allocate(capacity: max(count, 1))
        for (index, element) in elements.enumerated() { (pointer + index).initialize(to: element) }
    }

    deinit {
        pointer.deinitialize(count: count)
        pointer.deallocate()
    }
}
