import ArgumentParser
import Foundation

/// The one check every command that reads or changes a store makes before opening `--db`: the
/// file must exist. Opening a missing path would create an empty store and answer from it (zero
/// events, a funnel of nobody), so it is a usage error instead. `serve` and `import` are the
/// commands that create a store, and do not call this.
func requireExistingDatabase(_ path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("no database at \(path)") }
}
