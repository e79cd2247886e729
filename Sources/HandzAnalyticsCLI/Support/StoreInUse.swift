import Foundation
import HandzColumnStore
import HandzStore

/// Whether another process is using an embedded store, so that `restore --replace` never swaps a
/// file out from under it (issue 37 §1). Two `flock`s beside the database:
/// - `DB.serve.lock`, held shared by every `serve` on the store for its whole life;
/// - `DB.columns.lock`, the column store writer's, held by `serve`'s sealer and by `layer` and
///   `import` while they seal.
/// The kernel drops both when a process dies, so a crashed server never blocks a restore.
enum StoreInUse {
    static func serveLockPath(db: String) -> String { db + ".serve.lock" }

    /// Taken by `serve` before it opens the store; closing the descriptor (or exiting) releases it.
    static func holdWhileServing(db: String) throws -> Int32 {
        try take(serveLockPath(db: db), LOCK_SH, refusal: "another process holds \(db) for replacement (restore); wait for it to finish")
    }

    /// Both locks, exclusively and without waiting, or `store_in_use`.
    static func lockForReplacement(db: String) throws -> [Int32] {
        let serve = try take(serveLockPath(db: db), LOCK_EX, refusal: "serve is running on \(db); stop it first")
        do {
            return [serve, try take(ColumnStore.directory(forDatabase: db) + ".lock", LOCK_EX,
                                    refusal: "another process (serve, layer or import) is using \(db); stop it first")]
        } catch {
            close(serve)
            throw error
        }
    }

    static func release(_ descriptors: [Int32]) {
        for descriptor in descriptors { close(descriptor) }
    }

    private static func take(_ path: String, _ operation: Int32, refusal: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreBackupError(.ioFailed, "cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, operation | LOCK_NB) == 0 else {
            close(descriptor)
            throw StoreBackupError(.storeInUse, refusal)
        }
        return descriptor
    }
}
