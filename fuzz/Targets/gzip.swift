// Fuzz target (libFuzzer): gzip decompression with the server's hard output limit, on arbitrary
// bytes (the body of every POST /v1/batch with Content-Encoding: gzip). Checks the limit holds:
// no output is ever larger than it, whatever the input claims.

let gzipLimit = 64 * 1024

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let output = try? Gzip.decompress(input, limit: gzipLimit) else { return 0 }
    precondition(output.count <= gzipLimit, "decompressed past the limit")
    return 0
}
