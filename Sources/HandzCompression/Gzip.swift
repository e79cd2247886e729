import CZlib

/// Gzip (RFC 1952) through the system zlib, with hard limits so a small body cannot expand
/// without bound (a "gzip bomb"). Shared by the ingestion endpoint and the on-device client.
public enum Gzip {
    public enum Failure: Error, Equatable, Sendable {
        /// The output would exceed the limit.
        case tooLarge
        /// The input ended before the gzip stream did.
        case truncated
        /// Not gzip, or damaged.
        case corrupt
    }

    /// Decompresses one gzip member, refusing to produce more than `limit` bytes. Memory stays
    /// bounded by `limit` plus one chunk whatever the input claims.
    public static func decompress(_ input: UnsafeRawBufferPointer, limit: Int) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw .corrupt }
        defer { inflateEnd(&stream) }
        guard let base = input.baseAddress, input.count > 0 else { throw .truncated }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(input.count * 4, 4096)))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var status: Int32 = Z_OK
            let produced = chunk.withUnsafeMutableBufferPointer { buffer -> Int in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                status = inflate(&stream, Z_NO_FLUSH)
                return buffer.count - Int(stream.avail_out)
            }
            guard output.count + produced <= limit else { throw .tooLarge }
            output.append(contentsOf: chunk[0..<produced])
            switch status {
            case Z_STREAM_END:
                // Anything after the member (a second member, garbage) is refused.
                guard stream.avail_in == 0 else { throw .corrupt }
                return output
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                if stream.avail_in == 0 { throw .truncated }
            default:
                throw .corrupt
            }
        }
    }

    public static func decompress(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        let result = input.withUnsafeBytes { buffer in Result { () throws(Failure) -> [UInt8] in try decompress(buffer, limit: limit) } }
        return try result.get()
    }

    /// Compresses `input` as one gzip member.
    public static func compress(_ input: UnsafeRawBufferPointer, level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return []
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        let written = output.withUnsafeMutableBufferPointer { buffer -> Int in
            stream.next_out = buffer.baseAddress
            stream.avail_out = uInt(buffer.count)
            _ = deflate(&stream, Z_FINISH)
            return buffer.count - Int(stream.avail_out)
        }
        output.removeSubrange(written...)
        return output
    }

    public static func compress(_ input: [UInt8], level: Int32 = 6) -> [UInt8] {
        input.withUnsafeBytes { compress($0, level: level) }
    }
}
