import ArgumentParser
import Foundation
import HandzAnalyticsCore
import HandzStore
import HandzSynthetic

/// `--db PATH` and a UTC time range, shared by the store commands.
struct StoreOptions: ParsableArguments {
    @Option(help: "SQLite database file.")
    var db = "handz-events.sqlite"

    func open() throws -> SQLiteEventStore {
        guard FileManager.default.fileExists(atPath: db) else { throw ValidationError("no database at \(db)") }
        return try SQLiteEventStore(path: db)
    }
}

/// A UTC date (`2026-03-01`) or ISO-8601 date-time on the command line, as epoch milliseconds.
func parseUTC(_ text: String) -> Int64? {
    let full = text.count == 10 ? text + "T00:00:00Z" : text
    return full.utf8CString.withUnsafeBytes { buffer in
        TimestampFormat.parse(buffer.baseAddress!, full.utf8.count).map { $0.seconds * 1000 + Int64($0.nanoseconds / 1_000_000) }
    }
}

/// `handz-analytics stats --db PATH [--from DATE] [--to DATE]`.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Accepted, duplicate and rejected events (by code) over a receive-time range.")

    @OptionGroup var store: StoreOptions

    @Option(help: "From (inclusive), UTC date or ISO-8601 time.")
    var from: String?

    @Option(help: "To (exclusive), UTC date or ISO-8601 time.")
    var to: String?

    func validate() throws {
        if let from, parseUTC(from) == nil { throw ValidationError("--from must be a UTC date (2026-03-01) or ISO-8601 time") }
        if let to, parseUTC(to) == nil { throw ValidationError("--to must be a UTC date (2026-03-01) or ISO-8601 time") }
    }

    func run() throws {
        let stats = try store.open().stats(fromMs: from.flatMap(parseUTC) ?? .min, toMs: to.flatMap(parseUTC) ?? .max)
        var json = JSONText()
        json.beginObject()
        json.field("requests", stats.requests)
        json.field("accepted", stats.accepted)
        json.field("duplicates", stats.duplicates)
        json.field("rejected", stats.rejected)
        json.counts("rejected_by_code", stats.rejectedByCode)
        json.field("stored_events", stats.storedEvents)
        json.endObject()
        print(json.text)
    }
}

/// `handz-analytics forget-user USER_ID`: CH33 §9 / CH34 §8.3 account deletion for analytics.
struct ForgetUser: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget-user",
        abstract: "Remove every link between a user_id and stored events (the events stay, anonymous)."
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The user_id (a UUID).")
    var userID: String

    func validate() throws {
        guard StringFormat.uuid.matches(userID) else { throw ValidationError("USER_ID must be a UUID") }
    }

    func run() throws {
        let count = try store.open().forgetUser(userID.lowercased())
        print("{\"events_unlinked\":\(count)}")
    }
}

/// `handz-analytics purge --older-than 13mo`: the retention period (CH33-P3).
struct Purge: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete what was received before the retention period (e.g. 13mo, 400d).")

    @OptionGroup var store: StoreOptions

    @Option(help: "Retention: Nmo (calendar months, UTC) or Nd (days).")
    var olderThan: String

    func validate() throws {
        guard Self.cutoff(olderThan, now: Date()) != nil else { throw ValidationError("--older-than must look like 13mo or 400d") }
    }

    static func cutoff(_ text: String, now: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        if text.hasSuffix("mo"), let months = Int(text.dropLast(2)), months > 0 {
            return calendar.date(byAdding: .month, value: -months, to: now)
        }
        if text.hasSuffix("d"), let days = Int(text.dropLast()), days > 0 {
            return now.addingTimeInterval(-Double(days) * 86_400)
        }
        return nil
    }

    func run() throws {
        let cutoff = Self.cutoff(olderThan, now: Date())!
        let result = try store.open().purge(receivedBeforeMs: Int64(cutoff.timeIntervalSince1970 * 1000))
        print("{\"events\":\(result.events),\"rejected_events\":\(result.rejectedEvents),\"batches\":\(result.batches)}")
    }
}
