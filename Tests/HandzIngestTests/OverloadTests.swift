import Foundation
import HandzSQLite
import HandzTestSupport
import Testing

/// The server driven far past its capacity (issue 18 §7): it sheds load with 429 and
/// `Retry-After` instead of queueing without bound, its resident memory stays under the
/// documented bound (HandzServer docs, "Operations", Overload), and every event it acknowledged is
/// stored — exactly those, nothing from a refused batch. Against the real `handz-analytics serve`;
/// bounded in requests and time.
@Suite(.serialized) struct OverloadTests {
    /// Processing slots for this run: small, so 64 concurrent senders are 32 times the capacity.
    static let slots = 2
    static let senders = 64
    static let rounds = 5
    static let eventsPerBatch = 500
    /// The store writer's page cache for this run, MiB: part of the bound, and small, so the
    /// bound stays sharp however many batches a run accepts.
    static let cacheMiB = 16

    @Test("64 senders of 500-event batches against 2 slots: 429 with Retry-After, memory under the documented bound, every acknowledged event stored")
    func farPastCapacity() async throws {
        let directory = try temporaryDirectory("handz-overload")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(directory: directory, arguments: ServerProcessTests.sqliteLog + [
            "--max-concurrent-requests", String(Self.slots),
            "--install-events-per-second", "1000000", "--install-burst", "1000000", "--cache-mib", String(Self.cacheMiB),
        ])
        defer { server.stop() }
        let client = IngestHTTPClient(baseURL: server.baseURL, key: try server.ingestKey())

        // No idle connections are held here: ConnectionTimeoutTests holds 1,020 in the same test
        // process, and a few hundred more while other suites spawn commands made Foundation's
        // Process.run crash once (CI of 2026-11-25, descriptor 1,355). Idle connections and the
        // connection cap are proved there and in ListenerLimitsTests.
        // Each sender sends `rounds` batches of new events at once, alternating plain JSON (about
        // 230 KB) and gzip; a refused batch is not retried here (the client's job), so the events
        // stored must be exactly those of the batches answered 200.
        let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
            for sender in 0..<Self.senders {
                group.addTask {
                    var outcomes: [Outcome] = []
                    for round in 0..<Self.rounds {
                        let batch = sender * Self.rounds + round
                        let events = ServerProcessTests.events(Self.eventsPerBatch, offset: batch * Self.eventsPerBatch)
                        // A 429 for concurrency is answered before the body is read and the connection
                        // closed (issue 32 §1); a client still uploading 230 KB can then see the
                        // connection reset instead of the answer (a CI run of 2026-11-27, once in
                        // four). Counted as status 0: not acknowledged, so none of its events may be
                        // stored. A lingering close (drain a bounded tail before closing) would
                        // deliver the 429; it is recorded as open in issue 32's note.
                        do {
                            let answer = try await client.send(events: events, gzip: batch % 2 == 0)
                            outcomes.append(Outcome(status: answer.status, retryAfter: answer.headers["retry-after"],
                                                    accepted: answer.json?["accepted"] as? Int))
                        } catch let error as URLError where error.code == .networkConnectionLost {
                            // URLSession on Linux throws `URLError`; a conditional cast of it to
                            // `NSError` fails there (no bridging in dynamic casts), so the reset
                            // escaped the `NSError` pattern this had (CI of 26c4ead, 2026-11-28).
                            outcomes.append(Outcome(status: 0, retryAfter: nil, accepted: nil))
                        } catch let error as NSError where error.domain == NSURLErrorDomain && error.code == NSURLErrorNetworkConnectionLost {
                            outcomes.append(Outcome(status: 0, retryAfter: nil, accepted: nil))
                        }
                    }
                    return outcomes
                }
            }
            var all: [Outcome] = []
            for try await part in group { all += part }
            return all
        }
        let peakResidentBytes = try Self.peakResidentBytes(pid: server.process.processIdentifier)

        let ok = outcomes.filter { $0.status == 200 }
        let shed = outcomes.filter { $0.status == 429 || $0.status == 503 }
        let reset = outcomes.filter { $0.status == 0 }
        #expect(ok.count + shed.count + reset.count == outcomes.count, "only 200, 429, 503 and a reset upload: \(Set(outcomes.map(\.status)))")
        #expect(reset.count <= shed.count, "resets are the exception among refusals: \(reset.count) resets, \(shed.count) refusals")
        #expect(!shed.isEmpty, "the load went past capacity")
        #expect(!ok.isEmpty, "and the server kept serving within it")
        #expect(shed.allSatisfy { Int($0.retryAfter ?? "") ?? 0 >= 1 }, "every refusal says when to come back")
        #expect(ok.allSatisfy { $0.accepted == Self.eventsPerBatch })

        // The documented bound (HandzServer docs, "Operations"): 128 MiB for the process itself
        // with its connections, plus the store writer's page cache, plus per processing slot the
        // body as sent (1 MiB) and twice the decompressed limit (5 MiB: the decompressed body and
        // the events packed for the store).
        let bound = (128 + Self.cacheMiB + Self.slots * (1 + 2 * 5)) << 20
        let refusals = Dictionary(grouping: shed, by: \.status).mapValues(\.count).sorted { $0.key < $1.key }
        print("overload: \(outcomes.count) batches, \(ok.count) answered 200, shed \(refusals), \(reset.count) uploads reset; peak resident \(peakResidentBytes >> 20) MiB of a \(bound >> 20) MiB bound")
        #expect(peakResidentBytes < bound, "peak resident \(peakResidentBytes >> 20) MiB, bound \(bound >> 20) MiB")

        #expect(server.stop() == 0)
        let stored = try SQLiteDatabase(path: directory.appendingPathComponent("handz-events.sqlite").path)
            .scalar("SELECT COUNT(*) FROM events") ?? -1
        #expect(stored == Int64(ok.count * Self.eventsPerBatch), "stored \(stored), acknowledged \(ok.count * Self.eventsPerBatch)")
    }

    struct Outcome: Sendable {
        var status: Int
        var retryAfter: String?
        var accepted: Int?
    }

    /// The process's peak resident set (`VmHWM` in /proc/<pid>/status), in bytes.
    static func peakResidentBytes(pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
        return kilobytes * 1024
    }
}
