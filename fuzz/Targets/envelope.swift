// Fuzz target (libFuzzer): the batch envelope parser on arbitrary bytes (what follows the gzip
// layer of every POST /v1/batch). Checks that every event range it returns lies inside the input,
// in order and without overlap, and that a catalog version is at most 32 bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: data, count: size)
    guard let envelope = try? BatchEnvelopeParser.parse(buffer, maxEvents: 1_000) else { return 0 }
    var end = 0
    for range in envelope.events {
        precondition(range.lowerBound >= end && range.upperBound <= size && !range.isEmpty, "an event range outside the body or out of order")
        end = range.upperBound
    }
    precondition(envelope.events.count <= 1_000, "more events than the limit")
    precondition((envelope.catalogVersion?.utf8.count ?? 0) <= 32, "an oversized catalog_version")
    return 0
}
