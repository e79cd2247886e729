import Foundation
import HandzAnalyticsCore
import HandzSigning
import Logging

/// The ingestion keys the endpoint accepts, read from the keys file and re-read when the file
/// changes (checked at most once a second), so `handz-analytics keys revoke` takes effect on a
/// running server without a restart.
///
/// A file that does not load — unreadable JSON, or a key whose secret is not exactly 64 hex digits
/// (``KeysFile/load(path:)``) — is refused whole: at start the server does not start; on a change
/// the keys in force stay and a warning names the failing key id (never a secret).
public final class KeyRing: Sendable {
    public let path: String
    private let logger: Logger
    private struct State {
        var file: KeysFile
        var modified: Date?
        var checked: Date
        /// The modification date of the last file that failed to load (logged once).
        var failedModified: Date?
    }
    private let state: Locked<State>

    public init(path: String, logger: Logger = Logger(label: "handz.keys")) throws {
        self.path = path
        self.logger = logger
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
                if modified != state.modified {
                    // A failed load is tried again every second (a half-written file may be
                    // completed within the same mtime), and logged once per change of the file.
                    do {
                        state.file = try KeysFile.load(path: path)
                        state.modified = modified
                    } catch {
                        if state.failedModified != modified {
                            logger.warning("keys file not reloaded; the keys in force stay", metadata: ["reason": "\(error)"])
                            state.failedModified = modified
                        }
                    }
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
