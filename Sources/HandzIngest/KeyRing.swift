import Foundation
import HandzSigning

/// The ingestion keys the endpoint accepts, read from the keys file and re-read when the file
/// changes (checked at most once a second), so `handz-analytics keys revoke` takes effect on a
/// running server without a restart.
public final class KeyRing: Sendable {
    public let path: String
    private struct State {
        var file: KeysFile
        var modified: Date?
        var checked: Date
    }
    private let state: Locked<State>

    public init(path: String) throws {
        self.path = path
        let file = try KeysFile.load(path: path)
        state = Locked(State(file: file, modified: Self.modificationDate(path), checked: Date()))
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// The key with this id, after re-reading the file if it changed.
    public func key(id: String, now: Date = Date()) -> IngestionKey? {
        state.withLock { state in
            if now.timeIntervalSince(state.checked) >= 1 {
                state.checked = now
                let modified = Self.modificationDate(path)
                if modified != state.modified, let file = try? KeysFile.load(path: path) {
                    state.file = file
                    state.modified = modified
                }
            }
            return state.file.key(id: id)
        }
    }

    /// Re-reads the file now.
    public func reload() throws {
        let file = try KeysFile.load(path: path)
        state.withLock { state in
            state.file = file
            state.modified = Self.modificationDate(path)
            state.checked = Date()
        }
    }
}
