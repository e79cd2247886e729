import CZlib

/// Gzip compression in a stream: bytes in, compressed bytes handed to `sink` as they are
/// produced, so a file of any size is written in constant memory (the lake export). One gzip
/// member; the header carries no file name and a zero mtime, so the same input gives the same
/// bytes on every run and machine.
public final class GzipStream {
    private var stream = z_stream()
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let sink: ([UInt8]) throws -> Void
    private var finished = false

    public init(level: Int32 = 6, sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed")
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `bytes`, handing any full output to the sink.
    public func write(_ bytes: [UInt8]) throws {
        precondition(!finished, "write after finish")
        try bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            try drain(flush: Z_NO_FLUSH)
        }
    }

    /// Ends the gzip member (trailer with CRC-32 and size) and hands the rest to the sink.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        stream.next_in = nil
        stream.avail_in = 0
        try drain(flush: Z_FINISH)
    }

    private func drain(flush: Int32) throws {
        repeat {
            let produced = buffer.withUnsafeMutableBufferPointer { output -> Int in
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                _ = deflate(&stream, flush)
                return output.count - Int(stream.avail_out)
            }
            if produced > 0 { try sink(Array(buffer[0..<produced])) }
        } while stream.avail_out == 0 || (flush == Z_NO_FLUSH ? stream.avail_in > 0 : false)
    }
}
