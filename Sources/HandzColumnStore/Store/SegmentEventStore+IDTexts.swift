import HandzAnalyticsCore

extension SegmentEventStore {
    /// Every id the store may hold as a user id, as text: the column store's UUIDs and its
    /// 36-character strings (an id once stored in another case), after sealing the segments
    /// waiting. An analysis node matches the shared store's deletion requests against these
    /// (issue 36 §2): once run, a request keeps only the id's salted hash.
    public func idTexts() throws -> [String] {
        try columns.withWriter(lockWait: Self.lifecycleLockWait) { writer, _ in try seal(into: writer) }
        let directory = ColumnStore.directory(forDatabase: path)
        let store = try ColumnStore(directory: directory)
        var texts = try store.uuidDictionary().uuids.filter { $0 != Dictionaries.tombstone }.map { words in
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in 0..<8 {
                bytes[index] = UInt8(truncatingIfNeeded: words.high >> (56 - 8 * UInt64(index)))
                bytes[8 + index] = UInt8(truncatingIfNeeded: words.low >> (56 - 8 * UInt64(index)))
            }
            return UUIDText.canonical(bytes)
        }
        texts += store.strings.strings.filter { $0.utf8.count == 36 }.map { $0.lowercased() }
        return texts
    }
}
