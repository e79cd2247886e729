// Fuzz target (libFuzzer): the catalog and QA rule YAML loaders on arbitrary bytes. The first
// byte picks which file the rest is — one of the catalog's rule files, loaded from memory with
// catalog.yaml, naming.yaml and envelope.yaml and linted, or a QA rule file, read from a scratch
// directory and checked against the repository catalog. Loading and linting must never crash, hang or trip the address sanitizer, whatever the
// bytes; problems are values, not traps.
import FuzzEntry
import Foundation
import HandzCatalog

/// The repository catalog's rule files, read once (HANDZ_FUZZ_CATALOG, default `catalog`).
nonisolated(unsafe) let repositoryFiles: [String: String] = {
    let directory = ProcessInfo.processInfo.environment["HANDZ_FUZZ_CATALOG"] ?? "catalog"
    let files = CatalogFiles.directory(directory).ruleFiles()
    guard !files.isEmpty else { fatalError("no catalog at \(directory)") }
    return files
}()
nonisolated(unsafe) let fileNames = repositoryFiles.keys.sorted()
/// What each input is loaded with: the three small files that give the others their context.
/// (Loading the whole catalog around every input cost 0.15 s an execution; a file is loaded with
/// its neighbours missing, which the loader reports as problems like any other.)
nonisolated(unsafe) let baseFiles = repositoryFiles.filter { ["catalog.yaml", "naming.yaml", "envelope.yaml"].contains($0.key) }
nonisolated(unsafe) let baseCatalog = CatalogLoader.load(.memory(repositoryFiles), label: "fuzz").catalog
let qaDirectory: String = {
    let path = NSTemporaryDirectory() + "handz-fuzz-qa-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalogYAML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let choice = Int(data[0]) % (fileNames.count + 1)
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    if choice == fileNames.count {
        let path = qaDirectory + "/rules.yaml"
        guard (try? text.write(toFile: path, atomically: false, encoding: .utf8)) != nil else { return 0 }
        _ = QARuleLoader.read(directory: qaDirectory, prefix: "qa/", catalog: baseCatalog)
    } else {
        var files = baseFiles
        files[fileNames[choice]] = text
        let loaded = CatalogLoader.load(.memory(files), label: "fuzz")
        _ = CatalogLinter.lint(loaded)
    }
    return 0
}
