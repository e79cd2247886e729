import HandzAnalyticsCore
import HandzQuery

// The walk from the anchors' working parts (ColumnPaths+Anchored.swift): how the anchored
// sessions' slots are shared among the workers, one chunk's kept rows, and each session's buffer
// of its nearest events.

/// How the slots are shared among the parts (one per worker): in blocks of ``blockSize`` slots
/// dealt in turn, so each part has its share of every day's slots (a day's chunks fall in that
/// day's, ``AnchoredSessions``) and every worker gets work from every wave. A slot's number in its
/// part is its block's number among the part's blocks, then its offset, so a part's slots are
/// numbered densely from 0.
struct SlotParts: Sendable {
    static let blockShift = 10
    static let blockSize = 1 << blockShift

    let sessions: Int
    let parts: Int

    /// The part of `slot` and its number within the part.
    @inline(__always) func place(_ slot: Int) -> (part: Int, local: Int) {
        let block = slot >> Self.blockShift
        return (block % parts, (block / parts) << Self.blockShift | slot & (Self.blockSize - 1))
    }

    /// How many of the slots fall in `part`.
    func sessions(inPart part: Int) -> Int {
        let fullBlocks = sessions >> Self.blockShift
        let rest = sessions & (Self.blockSize - 1)
        var count = (fullBlocks / parts + (part < fullBlocks % parts ? 1 : 0)) << Self.blockShift
        if rest > 0 && fullBlocks % parts == part { count += rest }
        return count
    }
}

/// One chunk's rows for the buffers, per part of the slots.
struct SideRows: Sendable {
    /// Each kept row's slot (within its part), time and id.
    struct Part: Sendable {
        var slots: [Int32] = []
        var times: [Int64] = []
        var ids: [UUIDWords] = []

        mutating func reserve(_ count: Int) {
            slots.reserveCapacity(count)
            times.reserveCapacity(count)
            ids.reserveCapacity(count)
        }

        @inline(__always) mutating func append(slot: Int32, time: Int64, id: UUIDWords) {
            slots.append(slot)
            times.append(time)
            ids.append(id)
        }
    }

    var parts: [Part]
    /// An anchored session's id seen under another install: the general walk must run.
    var mixedInstalls = false

    init(parts: Int) {
        self.parts = Array(repeating: Part(), count: parts)
    }
}

/// One part of the slots' buffers, filled by one thread at a time: the worker of its part in a
/// wave's second step (``ParallelWork`` returns before the next wave starts).
final class NearestPart: @unchecked Sendable {
    private(set) var steps: NearestSteps

    init(_ steps: NearestSteps) {
        self.steps = steps
    }

    func offer(_ rows: SideRows.Part, event: Int32) {
        steps.offer(rows, event: event)
    }
}

/// Each anchored session's `depth` events nearest its anchor on the path's side, nearest first,
/// in one flat array of `depth` records per session (its slot): a small sorted buffer per session,
/// so no list of every event per session and no sort. A session's records lie side by side (two
/// or three cache lines for depths 3 to 5) and say themselves how many are filled (event −1:
/// empty), as the buffers are reached in no useful order.
struct NearestSteps {
    struct Step {
        var time: Int64
        var id: UUIDWords
        var event: Int32
    }

    let depth: Int
    let next: Bool
    private var steps: [Step]

    init(sessions: Int, depth: Int, direction: PathQuery.Direction) {
        self.depth = depth
        next = direction == .next
        steps = Array(repeating: Step(time: 0, id: UUIDWords(high: 0, low: 0), event: -1), count: sessions * depth)
    }

    /// Keeps the event if it is among the session's `depth` nearest so far.
    @inline(__always) mutating func offer(session: Int, time: Int64, id: UUIDWords, event: Int32) {
        let here = (time, id)
        let (depth, next) = (depth, next)
        @inline(__always) func nearer(_ a: (Int64, UUIDWords), _ b: (Int64, UUIDWords)) -> Bool { next ? a < b : a > b }
        steps.withUnsafeMutableBufferPointer { all in
            let kept = UnsafeMutableBufferPointer(rebasing: all[(session * depth)..<(session * depth + depth)])
            var count = 0
            while count < depth && kept[count].event >= 0 { count += 1 }
            if count == depth {
                // Full: only an event nearer than the farthest kept gets in.
                guard nearer(here, (kept[depth - 1].time, kept[depth - 1].id)) else { return }
                count -= 1
            }
            var place = count
            while place > 0 && nearer(here, (kept[place - 1].time, kept[place - 1].id)) {
                kept[place] = kept[place - 1]
                place -= 1
            }
            kept[place] = Step(time: time, id: id, event: event)
        }
    }

    /// Offers each of one chunk's kept rows (all of event `event`).
    mutating func offer(_ rows: SideRows.Part, event: Int32) {
        for index in rows.slots.indices {
            offer(session: Int(rows.slots[index]), time: rows.times[index], id: rows.ids[index], event: event)
        }
    }

    /// Each session's path as one integer (an event's index + 1 per step of `stepBits` bits, 0
    /// for none), counted.
    func packedPaths(stepBits: Int) -> [UInt64: Int64] {
        var packed: [UInt64: Int64] = [:]
        for session in 0..<(depth == 0 ? 0 : steps.count / depth) {
            var key: UInt64 = 0
            for step in 0..<depth where steps[session * depth + step].event >= 0 {
                key |= UInt64(steps[session * depth + step].event + 1) << UInt64(step * stepBits)
            }
            packed[key, default: 0] += 1
        }
        return packed
    }
}
