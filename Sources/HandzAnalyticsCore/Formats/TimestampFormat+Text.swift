extension TimestampFormat {
    /// A UTC date (`2026-03-01`: its midnight) or an ISO-8601 time in UTC, as epoch milliseconds;
    /// nil for anything else, or a date outside 2000–2099 (``parse(_:_:)``). The command line's
    /// `--from`/`--to` and the served dashboards' `from`/`to` read dates with it.
    public static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array((text.utf8.count == 10 ? text + "T00:00:00Z" : text).utf8)
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBytes { buffer in
            parse(buffer.baseAddress!, buffer.count).map { $0.seconds * 1000 + Int64($0.nanoseconds / 1_000_000) }
        }
    }
}
