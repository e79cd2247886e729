import Foundation
import HandzLake
import HandzStore
import Logging
import ServiceLifecycle

/// `serve --lake DIR`: rolls the event lake while the server runs. Every `interval` it exports
/// the last `lookbackHours` complete hours of receive time; partitions already on disk byte for
/// byte are left alone, so a tick costs one read of those hours. The lookback covers requests
/// received just before an hour ended and committed just after. Run it on one node (every node
/// would write identical bytes, but the reads would be repeated).
struct LakeExportService: Service {
    let store: any EventStore
    let exporter: LakeExporter
    let interval: Duration
    let lookbackHours: Int64
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await exportCompleteHours()
                try? await Task.sleep(for: interval)
            }
        }
    }

    func exportCompleteHours() async {
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let endMs = LakePartition.floorHour(nowMs)
        do {
            let summary = try await exporter.export(from: store, receivedFromMs: endMs - lookbackHours * LakePartition.hourMs, toMs: endMs)
            logger.info("lake export", metadata: [
                "written": "\(summary.written)", "unchanged": "\(summary.unchanged)", "removed": "\(summary.removed)", "rows": "\(summary.rows)",
            ])
        } catch {
            logger.error("lake export failed; retried at the next tick", metadata: ["error": "\(error)"])
        }
    }
}
