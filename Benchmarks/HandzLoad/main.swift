// handz-load: the ingestion load generator. Sends signed, gzip-compressed batches of valid events
// (random UUIDv4 event_ids, one install per batch) over many keep-alive loopback connections, and
// reports accepted events per second and request latency.
//
//   handz-load --url http://127.0.0.1:8080 --keys handz-keys.json [--connections 32] [--seconds 10]
//              [--rate EVENTS_PER_SECOND] [--events-per-batch 100] [--catalog DIR]
//
// Without --rate it sends as fast as the server answers (closed loop: each connection sends its next
// batch when the previous one is answered). With --rate it sends on a fixed schedule (open loop) and
// measures latency from the scheduled send time, so a slow server cannot hide its queueing.
import Foundation
import HandzCatalog
import HandzCompression
import HandzSigning
import HandzSynthetic
import NIOCore
import NIOHTTP1
import NIOPosix

struct Options {
    var host = "127.0.0.1"
    var port = 8080
    var keysPath = "handz-keys.json"
    var connections = 32
    var seconds = 10.0
    var rate: Double?
    var eventsPerBatch = 100
    var catalog = "catalog"
    var seed: UInt64 = 1
    /// `v4` (random, the default) or `v7` (time-ordered, as the iOS client makes them).
    var ids = "v4"

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--url":
                let trimmed = value.replacingOccurrences(of: "http://", with: "")
                let parts = trimmed.split(separator: ":")
                host = String(parts[0])
                port = parts.count > 1 ? Int(parts[1].split(separator: "/")[0]) ?? 8080 : 8080
            case "--keys": keysPath = value
            case "--connections": connections = Int(value) ?? connections
            case "--seconds": seconds = Double(value) ?? seconds
            case "--rate": rate = Double(value)
            case "--events-per-batch": eventsPerBatch = Int(value) ?? eventsPerBatch
            case "--catalog": catalog = value
            case "--seed": seed = UInt64(value) ?? seed
            case "--ids": ids = value == "v7" ? "v7" : "v4"
            default:
                FileHandle.standardError.write(Data("unknown option \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

/// Pre-built request bodies: each a gzip batch from one new install.
func makeBodies(count: Int, eventsPerBatch: Int, catalogDirectory: String, seed: UInt64, timeOrderedIDs: Bool = false) throws -> [[UInt8]] {
    let catalog = try CatalogLoader.loadChecked(directory: catalogDirectory)
    let factory = EventFactory(catalog: catalog)
    let events = catalog.events.filter(\.isEnabled)
    var random = SeededRandom(seed: seed)
    var bodies: [[UInt8]] = []
    bodies.reserveCapacity(count)
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    for _ in 0..<count {
        var context = factory.randomContext(&random, timeMilliseconds: now - 60_000)
        var text = "{\"events\":["
        for index in 0..<eventsPerBatch {
            let event = random.pick(events)
            context.timeMilliseconds += 37
            if index > 0 { text += "," }
            let id = timeOrderedIDs ? SyntheticUUID.v7(milliseconds: UInt64(context.timeMilliseconds), &random) : SyntheticUUID.v4(&random)
            text += factory.json(name: event.name, eventID: id, context: context,
                                 properties: factory.randomProperties(for: event, &random))
        }
        text += "]}"
        bodies.append(Gzip.compress(Array(text.utf8), level: 1))
    }
    return bodies
}

/// Shared by the connections; touched only on the one event loop thread.
final class LoadState: @unchecked Sendable {
    let bodies: [[UInt8]]
    let key: IngestionKey
    let host: String
    var next = 0
    var scheduled: [UInt64] = []          // open loop: when each queued batch should have been sent
    var latencies: [UInt64] = []
    var statuses: [UInt: Int] = [:]
    var acceptedEvents = 0
    var duplicateEvents = 0
    var deadline: UInt64 = 0
    var idle: [Channel] = []
    var inFlight = 0
    var issued = 0

    init(bodies: [[UInt8]], key: IngestionKey, host: String) {
        self.bodies = bodies
        self.key = key
        self.host = host
    }

    func request(on channel: Channel, scheduledAt: UInt64) {
        let body = bodies[next % bodies.count]
        next += 1
        inFlight += 1
        let authorization = RequestSignature.authorization(keyID: key.id, secret: key.secret, timestamp: Int64(Date().timeIntervalSince1970), body: body)
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/batch")
        head.headers.add(name: "Host", value: host)
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Encoding", value: "gzip")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Authorization", value: authorization)
        let handler = try! channel.pipeline.syncOperations.handler(type: ResponseHandler.self)
        handler.started = scheduledAt
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }
}

final class ResponseHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    let state: LoadState
    let openLoop: Bool
    var started: UInt64 = 0
    var status: UInt = 0
    var body: [UInt8] = []

    init(state: LoadState, openLoop: Bool) {
        self.state = state
        self.openLoop = openLoop
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status.code
            body.removeAll(keepingCapacity: true)
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            let now = DispatchTime.now().uptimeNanoseconds
            state.inFlight -= 1
            state.latencies.append(now - started)
            state.statuses[status, default: 0] += 1
            if status == 200 { count() }
            guard now < state.deadline else { return }
            if openLoop {
                if !state.scheduled.isEmpty {
                    state.request(on: context.channel, scheduledAt: state.scheduled.removeFirst())
                } else {
                    state.idle.append(context.channel)
                }
            } else {
                state.request(on: context.channel, scheduledAt: now)
            }
        }
    }

    /// Reads `"accepted":N,"duplicates":D` from the receipt.
    func count() {
        let text = String(decoding: body, as: UTF8.self)
        func number(after key: String) -> Int {
            guard let range = text.range(of: "\"\(key)\":") else { return 0 }
            return Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        state.acceptedEvents += number(after: "accepted")
        state.duplicateEvents += number(after: "duplicates")
    }
}

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
guard let key = try KeysFile.load(path: options.keysPath).keys.first(where: { $0.isActive && $0.scopes.contains(.ingest) }) else {
    FileHandle.standardError.write(Data("no active ingest key in \(options.keysPath)\n".utf8))
    exit(2)
}
// Distinct events enough for the run at this rate (closed loop: 400,000 events/s, past which the
// pool would run out and the rest be duplicates; with 150,000 the segment engine ran it out, issue 34).
let targetEvents = options.rate ?? 400_000
let batchesNeeded = max(options.connections * 2, Int(targetEvents * options.seconds / Double(options.eventsPerBatch) * 1.1))
let preparing = Date()
let bodies = try makeBodies(count: batchesNeeded, eventsPerBatch: options.eventsPerBatch, catalogDirectory: options.catalog, seed: options.seed,
                            timeOrderedIDs: options.ids == "v7")
let bodyBytes = bodies.reduce(0) { $0 + $1.count }
FileHandle.standardError.write(Data(String(format: "prepared %d batches (%.1f MB gzip) in %.1f s\n", bodies.count, Double(bodyBytes) / 1e6, Date().timeIntervalSince(preparing)).utf8))

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let state = LoadState(bodies: bodies, key: key, host: options.host)
let openLoop = options.rate != nil
let channels: [Channel] = try (0..<options.connections).map { _ in
    try ClientBootstrap(group: group)
        .channelOption(.socketOption(.so_reuseaddr), value: 1)
        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                try channel.pipeline.syncOperations.addHandler(ResponseHandler(state: state, openLoop: openLoop))
            }
        }
        .connect(host: options.host, port: options.port).wait()
}

let start = DispatchTime.now().uptimeNanoseconds
let duration = UInt64(options.seconds * 1e9)
try loop.submit {
    state.deadline = start + duration
    if let rate = options.rate {
        // Open loop: every millisecond, schedule the batches due by now.
        state.idle = channels
        let batchesPerNanosecond = rate / Double(options.eventsPerBatch) / 1e9
        loop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(1)) { task in
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= state.deadline { task.cancel(); return }
            let due = Int(Double(now - start) * batchesPerNanosecond)
            while state.issued < due {
                let scheduledAt = start + UInt64(Double(state.issued) / batchesPerNanosecond)
                state.issued += 1
                if let channel = state.idle.popLast() {
                    state.request(on: channel, scheduledAt: scheduledAt)
                } else {
                    state.scheduled.append(scheduledAt)
                }
            }
        }
    } else {
        for channel in channels { state.request(on: channel, scheduledAt: start) }
    }
}.wait()

// Wait for the run, then for the answers still in flight (bounded).
Thread.sleep(forTimeInterval: options.seconds)
for _ in 0..<300 {
    if try loop.submit({ state.inFlight == 0 }).wait() { break }
    Thread.sleep(forTimeInterval: 0.1)
}
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
let (latencies, statuses, accepted, duplicates, backlog) = try loop.submit {
    (state.latencies.sorted(), state.statuses, state.acceptedEvents, state.duplicateEvents, state.scheduled.count)
}.wait()
for channel in channels { try? channel.close().wait() }
try? group.syncShutdownGracefully()

let requests = latencies.count
print(String(format: "handz-load: %d requests in %.2f s over %d connections%@", requests, elapsed, options.connections,
             openLoop ? String(format: ", open loop at %.0f events/s", options.rate!) : ", closed loop"))
print("statuses: " + statuses.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
print(String(format: "accepted: %d events (%.0f events/s), duplicates: %d", accepted, Double(accepted) / elapsed, duplicates))
print(String(format: "latency ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f%@", percentile(latencies, 0.5), percentile(latencies, 0.9),
             percentile(latencies, 0.99), latencies.last.map { Double($0) / 1e6 } ?? 0, backlog > 0 ? "  (\(backlog) batches never sent: behind schedule)" : ""))
