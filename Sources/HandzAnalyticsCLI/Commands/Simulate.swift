import ArgumentParser
import Foundation
import HandzSynthetic

/// `handz-analytics simulate --installs N --days D --seed S --out FILE.ndjson`.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write realistic, catalog-valid journeys through F0–F4 (drop-off, retries, guests converting, ties, out-of-order arrival), deterministic for a seed."
    )

    @OptionGroup var catalogOptions: CatalogOptions

    @Option(help: "Installs to simulate.")
    var installs: Int

    @Option(help: "Days over which installs arrive (and their journeys run).")
    var days: Int

    @Option(help: "Seed (the same seed writes the same file).")
    var seed: UInt64 = 1

    @Option(help: "First day, UTC date (default 2026-03-01).")
    var start: String = "2026-03-01"

    @Option(help: "Output NDJSON file.")
    var out: String

    func validate() throws {
        guard installs > 0, installs <= 10_000_000 else { throw ValidationError("--installs must be 1…10,000,000") }
        guard days > 0, days <= 3_650 else { throw ValidationError("--days must be 1…3650") }
        guard parseUTC(start) != nil else { throw ValidationError("--start must be a UTC date (2026-03-01) or ISO-8601 time") }
    }

    func run() throws {
        let catalog = try catalogOptions.load()
        guard FileManager.default.createFile(atPath: out, contents: nil), let handle = FileHandle(forWritingAtPath: out) else {
            throw CleanFailure("cannot write \(out)")
        }
        defer { try? handle.close() }
        var simulator = JourneySimulator(catalog: catalog, options: .init(installs: installs, days: days, seed: seed, startMs: parseUTC(start)!))
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var lines = 0
        try simulator.run { line in
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            lines += 1
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
        print("{\"lines\":\(lines),\"installs\":\(installs),\"days\":\(days),\"seed\":\(seed)}")
    }
}
