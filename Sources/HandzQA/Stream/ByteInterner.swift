/// Interns short byte strings (event names, ids, closed-set values) to dense `Int32` ids without
/// building a `String` per lookup: open addressing on a 64-bit FNV-1a hash, confirmed byte by
/// byte. The hot path of reading a million events (STYLE habit 4; measured in BENCHMARKS.md).
struct ByteInterner {
    private var slots: [Int32]
    private var hashes: [UInt64] = []
    private var offsets: [Int] = [0]
    private var bytes: [UInt8] = []
    private var mask: Int

    init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: -1, count: size)
        mask = size - 1
    }

    var count: Int { hashes.count }

    @inline(__always) static func hash(_ p: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in p { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// The id of these bytes, adding them when new.
    mutating func intern(_ p: UnsafeRawBufferPointer) -> Int32 {
        if let id = lookup(p) { return id }
        let h = Self.hash(p)
        let id = Int32(hashes.count)
        hashes.append(h)
        bytes.append(contentsOf: p)
        offsets.append(bytes.count)
        if hashes.count * 2 > slots.count { grow() } else { place(id, h) }
        return id
    }

    mutating func intern(_ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    /// The id of these bytes, if interned.
    func lookup(_ p: UnsafeRawBufferPointer) -> Int32? {
        let h = Self.hash(p)
        var index = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = slots[index]
            if id < 0 { return nil }
            if hashes[Int(id)] == h && equal(Int(id), p) { return id }
            index = (index + 1) & mask
        }
    }

    func lookup(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { lookup(UnsafeRawBufferPointer($0)) }
    }

    func text(_ id: Int32) -> String {
        String(decoding: bytes[offsets[Int(id)]..<offsets[Int(id) + 1]], as: UTF8.self)
    }

    private func equal(_ id: Int, _ p: UnsafeRawBufferPointer) -> Bool {
        let start = offsets[id], end = offsets[id + 1]
        guard end - start == p.count else { return false }
        for offset in 0..<p.count where bytes[start + offset] != p[offset] { return false }
        return true
    }

    private mutating func place(_ id: Int32, _ h: UInt64) {
        var index = Int(truncatingIfNeeded: h) & mask
        while slots[index] >= 0 { index = (index + 1) & mask }
        slots[index] = id
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for (id, h) in hashes.enumerated() { place(Int32(id), h) }
    }
}
