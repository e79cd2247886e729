// Fuzz target (libFuzzer): the segment log's reader on arbitrary bytes (issue 34, "Proof"). The
// first byte picks what the rest is: a segment file's body after a valid header (SegmentScan, then
// every whole frame's BatchRecord), or one frame's payload alone. Every input must end in a format
// error or a value, never a trap; the scan's frames must lie inside the bytes, in order, with
// `validLength` ending the last; and a record that decodes must decode the same after it is
// encoded again.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSegmentLog(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 1 == 0 {
        let bytes = SegmentLayout.header(sequence: 1) + rest
        bytes.withUnsafeBytes { buffer in
            guard let scan = try? SegmentScan(buffer) else { fatalError("a valid header was refused") }
            var end = SegmentLayout.headerBytes
            for frame in scan.frames {
                guard frame.lowerBound == end + SegmentLayout.frameHeaderBytes, frame.upperBound <= buffer.count else {
                    fatalError("a frame outside the bytes or out of order")
                }
                end = frame.upperBound
                checkRecord(UnsafeRawBufferPointer(rebasing: buffer[frame]))
            }
            guard scan.validLength == end else { fatalError("validLength does not end the last frame") }
            switch scan.ending {
            case .clean: guard end == buffer.count else { fatalError("clean, with bytes after the last frame") }
            case .tornTail(let offset), .damagedMiddle(let offset): guard offset == end, end < buffer.count else { fatalError("damage not where the frames end") }
            }
        }
    } else {
        rest.withUnsafeBytes { checkRecord($0) }
    }
    return 0
}

private func checkRecord(_ payload: UnsafeRawBufferPointer) {
    guard let record = try? BatchRecord(decoding: payload) else { return }
    var again: [UInt8] = []
    record.encode(into: &again)
    guard let reread = try? again.withFormatBytes({ buffer throws(ChunkFormatError) in try BatchRecord(decoding: buffer) }) else {
        fatalError("a record that decodes does not decode after it is encoded again")
    }
    var third: [UInt8] = []
    reread.encode(into: &third)
    guard third == again, reread.rows.count == record.rows.count, reread.rejected == record.rejected, reread.keyID == record.keyID else {
        fatalError("a record reads back differently after it is encoded again")
    }
}
