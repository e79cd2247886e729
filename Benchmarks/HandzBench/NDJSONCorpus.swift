import Foundation

/// `FILE.ndjson [--passes N] [--catalog DIR]`: the arguments of the benchmarks that run over a
/// corpus file.
struct CorpusArguments {
    var file = ""
    var passes: Int
    var catalogDirectory = "catalog"
    /// `validate --versions N`: validate batch by batch through the server's catalog selection
    /// with N catalog versions loaded (0: the plain loop).
    var versions = 0
    /// With `--versions`: how many of the loaded versions the batches name in turn (default all;
    /// 1: every batch names the newest, the steady state after a release).
    var spread: Int?

    init(_ arguments: [String], passes: Int) {
        self.passes = passes
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--passes": self.passes = Int(iterator.next() ?? "") ?? passes
            case "--catalog": catalogDirectory = iterator.next() ?? catalogDirectory
            case "--versions": versions = Int(iterator.next() ?? "") ?? 0
            case "--spread": spread = Int(iterator.next() ?? "")
            default: file = argument
            }
        }
        if file.isEmpty { HandzBench.usage() }
    }
}

/// An NDJSON corpus held in memory, with the byte range of each non-empty line.
struct NDJSONCorpus {
    let bytes: [UInt8]
    let lines: [Range<Int>]

    init(path: String) throws {
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var lines: [Range<Int>] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            if index > start { lines.append(start..<index) }
            start = index + 1
        }
        if start < bytes.count { lines.append(start..<bytes.count) }
        self.lines = lines
    }
}
