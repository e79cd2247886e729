/// `exactly_once_per`, `followed_by`, `preceded_by`, `emitted_together`, `min_interval`.
extension RuleContext {
    /// CH33 §8.2 "Cold start: app_open emits exactly once": each unit (split after every
    /// `reset` event) that holds events holds exactly one `event`.
    mutating func exactlyOnce(_ event: CompiledPattern, _ scope: QAScope, _ reset: [CompiledPattern]) {
        for unit in order.units(scope) {
            var segment: [Int32] = []
            var matches: [Int32] = []
            func close(_ context: inout RuleContext) {
                defer { segment.removeAll(keepingCapacity: true); matches.removeAll(keepingCapacity: true) }
                guard !segment.isEmpty else { return }
                context.checked += 1
                if matches.isEmpty {
                    context.fail("no \(event.description) in this \(scope.rawValue) segment (expected exactly one)", [segment[0]])
                } else if matches.count > 1 {
                    context.fail("\(matches.count) × \(event.description) in one \(scope.rawValue) segment (expected exactly one)", matches)
                }
            }
            for index in unit {
                segment.append(index)
                if event.matches(index, log) { matches.append(index) }
                if reset.contains(where: { $0.matches(index, log) }) { close(&self) }
            }
            close(&self)
        }
    }

    /// `followed_by` (forward) and `preceded_by`: every `event` has a target on that side within
    /// `withinMs` in its unit, agreeing on `same`. Events of the same millisecond count as
    /// simultaneous — on either side — since a device's event ids need not order them (the
    /// client's UUIDv7s are random within a millisecond).
    mutating func sequence(_ event: CompiledPattern, _ targets: [CompiledPattern], _ withinMs: Int64, _ scope: QAScope, same: [String], forward: Bool) {
        let sameSlots = slots(same)
        let wanted = targets.map(\.description).joined(separator: " or ")
        let step = forward ? 1 : -1
        for unit in order.units(scope) {
            let events = Array(unit)
            for (position, index) in events.enumerated() where event.matches(index, log) {
                checked += 1
                let time = log.time[Int(index)]
                func isTarget(_ other: Int32) -> Bool { targets.contains { $0.matches(other, log) } && agree(index, other, sameSlots) }
                var found = false
                var cursor = position - step
                while !found, cursor >= 0, cursor < events.count, log.time[Int(events[cursor])] == time {
                    found = isTarget(events[cursor])
                    cursor -= step
                }
                cursor = position + step
                while !found, cursor >= 0, cursor < events.count, abs(log.time[Int(events[cursor])] - time) <= withinMs {
                    found = isTarget(events[cursor])
                    cursor += step
                }
                if !found {
                    let side = forward ? "followed by" : "preceded by"
                    fail("\(log.displayName(index)) not \(side) \(wanted) within \(Self.duration(withinMs)) in its \(scope.rawValue)", [index])
                }
            }
        }
    }

    /// Every `event` has each partner within `withinMs` (either side) in its session.
    mutating func together(_ event: CompiledPattern, _ partners: [CompiledPattern], _ withinMs: Int64, same: [String]) {
        let sameSlots = slots(same)
        for unit in order.units(.session) {
            let events = Array(unit)
            for (position, index) in events.enumerated() where event.matches(index, log) {
                checked += 1
                let time = log.time[Int(index)]
                var missing: [String] = []
                for partner in partners {
                    var found = false
                    for direction in [-1, 1] where !found {
                        var cursor = position + direction
                        while cursor >= 0 && cursor < events.count, abs(log.time[Int(events[cursor])] - time) <= withinMs {
                            let other = events[cursor]
                            if partner.matches(other, log) && agree(index, other, sameSlots) { found = true; break }
                            cursor += direction
                        }
                    }
                    if !found { missing.append(partner.description) }
                }
                if !missing.isEmpty {
                    fail("\(log.displayName(index)) without \(missing.joined(separator: ", ")) within \(Self.duration(withinMs)) in its session", [index])
                }
            }
        }
    }

    /// Consecutive `event`s in a unit are at least `intervalMs` apart.
    mutating func minInterval(_ event: CompiledPattern, _ intervalMs: Int64, _ scope: QAScope) {
        for unit in order.units(scope) {
            var previous: Int32?
            for index in unit where event.matches(index, log) {
                checked += 1
                if let previous, log.time[Int(index)] - log.time[Int(previous)] < intervalMs {
                    fail("two \(event.description) less than \(Self.duration(intervalMs)) apart in one \(scope.rawValue)", [previous, index])
                }
                previous = index
            }
        }
    }

    /// `1500` → `1.5s`, `86400000` → `1d`.
    static func duration(_ milliseconds: Int64) -> String {
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] where milliseconds >= size && milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(Double(milliseconds) / 1000)s"
    }
}
