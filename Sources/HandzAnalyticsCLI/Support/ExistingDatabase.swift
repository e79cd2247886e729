import ArgumentParser
import Foundation
import HandzColumnStore
import HandzServer
import HandzStore

/// The one check every command that reads or changes a store makes before opening `--db`: the
/// file must exist. Opening a missing path would create an empty store and answer from it (zero
/// events, a funnel of nobody), so it is a usage error instead. `serve` and `import` are the
/// commands that create a store, and do not call this.
func requireExistingDatabase(_ path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("no database at \(path)") }
}

/// Whether `path` is a segment engine's store (`serve --engine segments`, issue 34): its events
/// are in `PATH.segments/` and the column store, not in the SQLite file's `events` table.
func isSegmentStore(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: SegmentEventStore.segmentsDirectory(forDatabase: path))
}

/// The write path a store at `path` uses when no `--engine` is given (issue 34): a store keeps
/// its own engine, and a new one (no file yet) is made with the segment log. A store of the
/// SQLite log stays one until an operator asks for the one-way upgrade (`layer --engine
/// segments`, or `serve --engine segments`): it rewrites every stored event, which an upgrade of
/// the binary should not start by itself.
func defaultEngine(forDatabase path: String) -> EmbeddedEngine {
    if isSegmentStore(path) { return .segments }
    return FileManager.default.fileExists(atPath: path) ? .sqlite : .segments
}

/// The embedded store at `path` with the engine that wrote it. A segment store's log is held by
/// one process at a time: beside a running `serve` this fails with `segment_log_busy`, and the
/// server's own lifecycle (the deletion worker, retention, `--lake`) does the work instead.
func openEmbeddedStore(_ path: String) throws -> any EventStore {
    if isSegmentStore(path) { return try SegmentEventStore(path: path) { FileHandle.standardError.write(Data("note: \($0)\n".utf8)) } }
    return try SQLiteEventStore(path: path)
}
