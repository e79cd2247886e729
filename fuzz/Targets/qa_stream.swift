// Fuzz target (libFuzzer): the QA stream reader on arbitrary bytes, one NDJSON line (what
// `handz-analytics qa FILE.ndjson` reads from a captured device stream).

nonisolated(unsafe) var qaLog: QAEventLog = {
    guard let program = try? QAProgram(ruleSet: QARuleSet(rules: []), catalog: CatalogSnapshot.catalog) else { fatalError("no QA program") }
    return program.makeLog()
}()
nonisolated(unsafe) var qaLines = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQAStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    try? qaLog.append(line: UnsafeRawBufferPointer(start: data, count: size))
    // A fresh log now and then, so memory stays bounded over millions of runs.
    qaLines += 1
    if qaLines % 10_000 == 0, let program = try? QAProgram(ruleSet: QARuleSet(rules: []), catalog: CatalogSnapshot.catalog) {
        qaLog = program.makeLog()
    }
    return 0
}
