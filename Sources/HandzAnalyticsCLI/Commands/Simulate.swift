import ArgumentParser
import Foundation
import HandzAnalyticsCore
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

    @Option(help: ArgumentHelp("Comma-separated mistakes to inject, each caught by one QA rule (`qa`): \(SimulatedFault.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "LIST"))
    var faults: String?

    var faultSet: Set<SimulatedFault> {
        Set((faults ?? "").split(separator: ",").compactMap { SimulatedFault(rawValue: $0.trimmingCharacters(in: .whitespaces)) })
    }

    func validate() throws {
        guard installs > 0, installs <= 10_000_000 else { throw ValidationError("--installs must be 1…10,000,000") }
        guard days > 0, days <= 3_650 else { throw ValidationError("--days must be 1…3650") }
        guard TimestampFormat.milliseconds(start) != nil else { throw ValidationError("--start must be a UTC date (2026-03-01) or ISO-8601 time") }
        for name in (faults ?? "").split(separator: ",") where SimulatedFault(rawValue: name.trimmingCharacters(in: .whitespaces)) == nil {
            throw ValidationError("unknown fault \(name); known: \(SimulatedFault.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let catalog = try catalogOptions.load()
        guard FileManager.default.createFile(atPath: out, contents: nil), let handle = FileHandle(forWritingAtPath: out) else {
            throw CleanFailure("cannot write \(out)")
        }
        defer { try? handle.close() }
        var simulator = JourneySimulator(catalog: catalog, options: .init(installs: installs, days: days, seed: seed, startMs: TimestampFormat.milliseconds(start)!), faults: faultSet)
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
        guard faults != nil else {
            print("{\"lines\":\(lines),\"installs\":\(installs),\"days\":\(days),\"seed\":\(seed)}")
            return
        }
        // Where each fault went (synthetic ids), so a QA run can be checked against it.
        var json = JSONText()
        json.beginObject()
        json.field("lines", lines); json.field("installs", installs); json.field("days", days); json.field("seed", seed)
        json.key("faults")
        json.beginArray()
        for fault in simulator.injectedFaults {
            json.beginObject()
            json.field("fault", fault.fault.rawValue)
            json.field("rule", fault.fault.rule)
            json.field("install_id", fault.installID)
            json.key("session_id")
            if let session = fault.sessionID { json.string(session) } else { json.null() }
            json.field("event_name", fault.eventName)
            json.key("event_ids")
            json.beginArray()
            for id in fault.eventIDs { json.string(id) }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        print(json.text)
        let missing = simulator.faultsWithoutSite.filter { $0 != .missingFunnelStep || !simulator.injectedFaults.contains { $0.fault == .missingFunnelStep } }
        if !missing.isEmpty {
            throw CleanFailure("no place in this stream for: \(missing.map(\.rawValue).joined(separator: ", ")) (simulate more installs or days)")
        }
    }
}
