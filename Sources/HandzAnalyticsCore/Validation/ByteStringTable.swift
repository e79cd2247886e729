/// An immutable open-addressing hash table from byte strings to small integers, built once from
/// the catalog and probed with raw bytes straight out of the input buffer — no `String` is
/// created on the validator's hot path.
@usableFromInline
struct ByteStringTable: Sendable {
    @usableFromInline let slots: [Int32]          // -1 = empty, otherwise index into `entries`
    @usableFromInline let offsets: [Int32]        // entry i occupies storage[offsets[i] ..< offsets[i+1]]
    @usableFromInline let storage: [UInt8]
    @usableFromInline let values: [Int32]
    @usableFromInline let mask: Int

    init(_ pairs: [(key: String, value: Int)]) {
        var capacity = 8
        while capacity < pairs.count * 3 { capacity <<= 1 }
        var slots = [Int32](repeating: -1, count: capacity)
        var offsets: [Int32] = [0]
        var storage: [UInt8] = []
        var values: [Int32] = []
        for (index, pair) in pairs.enumerated() {
            let bytes = Array(pair.key.utf8)
            storage.append(contentsOf: bytes)
            offsets.append(Int32(storage.count))
            values.append(Int32(pair.value))
            var slot = bytes.withUnsafeBytes { Self.hash($0.baseAddress!, bytes.count) } & (capacity - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(index)
        }
        // Trailing padding lets `equal` read whole words past the last key.
        storage.append(contentsOf: [UInt8](repeating: 0, count: 16))
        self.slots = slots
        self.offsets = offsets
        self.storage = storage
        self.values = values
        self.mask = capacity - 1
    }

    var count: Int { values.count }

    /// A cheap hash of the length and a few sampled bytes: keys in one catalog differ early, late or in length.
    @inlinable @inline(__always)
    static func hash(_ p: UnsafeRawPointer, _ n: Int) -> Int {
        if n == 0 { return 0 }
        let a = Int(p.load(fromByteOffset: 0, as: UInt8.self))
        let b = Int(p.load(fromByteOffset: n - 1, as: UInt8.self))
        let c = Int(p.load(fromByteOffset: n >> 1, as: UInt8.self))
        let d = Int(p.load(fromByteOffset: (n * 3) >> 2, as: UInt8.self))
        var h = n &* 0x9E37_79B9
        h = (h ^ a) &* 0x0100_0193
        h = (h ^ b) &* 0x0100_0193
        h = (h ^ c) &* 0x0100_0193
        h = (h ^ d) &* 0x0100_0193
        return h ^ (h >> 15)
    }

    /// The value stored for the `n` bytes at `p`, or -1.
    @inlinable
    func lookup(_ p: UnsafeRawPointer, _ n: Int) -> Int {
        var slot = Self.hash(p, n) & mask
        return slots.withUnsafeBufferPointer { slots in
            offsets.withUnsafeBufferPointer { offsets in
                storage.withUnsafeBytes { storage in
                    while true {
                        let entry = Int(slots[slot])
                        if entry < 0 { return -1 }
                        let start = Int(offsets[entry])
                        if Int(offsets[entry + 1]) - start == n, bytesEqual(p, storage.baseAddress! + start, n) {
                            return Int(values[entry])
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    func lookup(_ key: String) -> Int {
        var key = key
        return key.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return lookupEmpty() }
            return lookup(UnsafeRawPointer(base), buffer.count)
        }
    }

    private func lookupEmpty() -> Int {
        var empty: UInt8 = 0
        return withUnsafePointer(to: &empty) { lookup(UnsafeRawPointer($0), 0) }
    }
}

/// Compares `n` bytes a word at a time.
@inlinable @inline(__always)
func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    var i = 0
    while i + 8 <= n {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
        i += 8
    }
    while i < n {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}
