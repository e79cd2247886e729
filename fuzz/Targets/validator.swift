// Fuzz target (libFuzzer): the event validator on arbitrary bytes. Built by scripts/fuzz.sh with
// the core's sources and the client's generated catalog snapshot in one module. Besides crashes
// and sanitizer reports it checks the redaction rule: a path holds only catalog-shaped segments
// (snake_case identifiers, digits) or `*`, never bytes of the input (HandzAnalyticsCore docs,
// "The validator", "Redaction").

let validatorCatalog = CompiledCatalog(CatalogSnapshot.catalog)
nonisolated(unsafe) var validator = EventValidator(catalog: validatorCatalog)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidator(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let verdict = validator.validate(UnsafeRawBufferPointer(start: data, count: size))
    precondition(verdict.issues.count <= validatorCatalog.catalog.limits.maxIssuesPerEvent, "more issues than the limit")
    for issue in verdict.issues {
        precondition(issue.path.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "*")
        }, "a path carries something other than catalog-shaped segments")
    }
    return 0
}
