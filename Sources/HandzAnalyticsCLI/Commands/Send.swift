import ArgumentParser
import Foundation
import HandzAnalyticsClient
import HandzSigning

/// `handz-analytics send --queue PATH --endpoint URL --key-file F [FILE|-]`: feeds NDJSON events
/// through the real client — validate, queue, deliver, retry — and prints its diagnostics at the
/// end. For backfills, and for testing the client from outside Swift.
struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send NDJSON events through the offline queue client and print its diagnostics."
    )

    @Option(help: "The client's queue file (SQLite).")
    var queue: String

    @Option(help: "The ingestion endpoint, e.g. http://127.0.0.1:8080.")
    var endpoint: String

    @Option(help: "A keys file; its first active ingest key signs the requests.")
    var keyFile: String

    @Option(help: "Give up waiting for delivery after this many seconds (the queue keeps the rest).")
    var timeout: Double = 60

    @Option(help: "Events per request at most.")
    var batchEvents = 100

    @Argument(help: "NDJSON events (complete, with their envelope), or - for standard input.")
    var input: String = "-"

    func validate() throws {
        guard URL(string: endpoint)?.scheme?.hasPrefix("http") == true else { throw ValidationError("--endpoint must be an http(s) URL") }
        if input != "-" && !FileManager.default.isReadableFile(atPath: input) { throw ValidationError("cannot read \(input)") }
    }

    func run() throws {
        let keys = try KeysFile.load(path: keyFile)
        guard let key = keys.keys.first(where: { $0.isActive && $0.scopes.contains(.ingest) }) else {
            throw ValidationError("no active ingest key in \(keyFile)")
        }
        var configuration = ClientConfiguration(endpoint: URL(string: endpoint)!, keyID: key.id, secret: key.secret, queuePath: queue)
        configuration.maxBatchEvents = batchEvents
        configuration.flushInterval = 1
        let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext())
        let handle = input == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: input)!
        var carry = Data()
        while true {
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            carry.append(chunk)
            while let newline = carry.firstIndex(of: 0x0A) {
                let line = carry[carry.startIndex..<newline]
                if !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { client.enqueue(rawEvent: Array(line)) }
                carry.removeSubrange(carry.startIndex...newline)
            }
        }
        if !carry.isEmpty { client.enqueue(rawEvent: Array(carry)) }
        client.drain(timeout: timeout)
        let diagnostics = client.diagnostics()
        client.shutdown()
        print(diagnostics.json)
        if diagnostics.queuedEvents > 0 || diagnostics.sendingStopped { throw ExitCode.failure }
    }
}

/// `handz-analytics queue stats --queue PATH`: the diagnostics of a queue on disk (no network).
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "queue", abstract: "Inspect a client queue.", subcommands: [Stats.self])

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a queue's diagnostics: counts, bytes, counters.")

        @Option(help: "The client's queue file.")
        var queue: String

        func validate() throws {
            guard FileManager.default.fileExists(atPath: queue) else { throw ValidationError("no queue at \(queue)") }
        }

        func run() throws {
            print(try AnalyticsClient.inspect(queuePath: queue).json)
        }
    }
}
