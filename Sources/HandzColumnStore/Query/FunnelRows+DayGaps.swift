import HandzAnalyticsCore

extension FunnelRows {
    /// The matched rows again in (day, actor, time, id) order, with a table of where each actor's
    /// rows of each day start: a breaker of day d finds its gap among its actor's rows of day d,
    /// which lie with the rest of that day's matched rows, not among all of its actor's rows. The
    /// breakers come day by day (the chunks are read in day order) and each chunk's in actor
    /// order, so the day's rows and the tables' two rows for that day stay in the cache and are
    /// read in order; by actor, each actor's first breaker of each chunk missed the cache in the
    /// binary search of its stamps (perf: nearly all of a strict F0's search).
    ///
    /// Built when the tables (4 bytes per actor and day, twice) and the copy fit in
    /// ``budgetBytes``; otherwise the gaps are found by actor (``GapCursor``).
    struct DayGaps: Sendable {
        static let budgetBytes = 128 << 20

        let firstDay: Int64
        let days: Int
        let actors: Int
        /// The matched rows in (day, actor, time, id) order: their times, ids and number in
        /// actor order (the gap numbers).
        private let times: [Int64]
        private let ids: [UUIDWords]
        private let numbers: [Int32]
        /// `positions[day * (actors + 1) + actor]`: where the actor's rows of that day start in
        /// `times` (the next entry: where they end).
        private let positions: [Int32]
        /// `firstFrom[day * actors + actor]`, days 0 ... `days`: the number of the actor's first
        /// matched row on that day or later (past its last: the next actor's first).
        private let firstFrom: [Int32]

        init?(starts: [Int], stamps: [Stamp], budgetBytes: Int) {
            let (total, actors) = (stamps.count, starts.count - 1)
            guard total > 0, total < Int(Int32.max), actors > 0 else { return nil }
            var (firstDay, lastDay) = (Int64.max, Int64.min)
            for stamp in stamps {
                let day = LogSealer.day(of: stamp.timeMs)
                (firstDay, lastDay) = (min(firstDay, day), max(lastDay, day))
            }
            let days = Int(lastDay - firstDay) + 1
            guard (days * (actors + 1) + (days + 1) * actors) * 4 + total * 32 <= budgetBytes else { return nil }
            // Each day's rows, taken in actor order, so in (actor, time, id) order within the day.
            var dayStarts = [Int](repeating: 0, count: days + 1)
            for stamp in stamps { dayStarts[Int(LogSealer.day(of: stamp.timeMs) - firstDay) + 1] += 1 }
            for day in 0..<days { dayStarts[day + 1] += dayStarts[day] }
            var next = dayStarts
            var times = [Int64](repeating: 0, count: total), ids = [UUIDWords](repeating: UUIDWords(high: 0, low: 0), count: total)
            var numbers = [Int32](repeating: 0, count: total), actorOf = [Int32](repeating: 0, count: total)
            for actor in 0..<actors {
                for number in starts[actor]..<starts[actor + 1] {
                    let day = Int(LogSealer.day(of: stamps[number].timeMs) - firstDay)
                    let place = next[day]
                    next[day] += 1
                    (times[place], ids[place], numbers[place], actorOf[place]) = (stamps[number].timeMs, stamps[number].id, Int32(number), Int32(actor))
                }
            }
            var positions = [Int32](repeating: 0, count: days * (actors + 1))
            var firstFrom = [Int32](repeating: 0, count: (days + 1) * actors)
            var first = starts.map(Int32.init)  // each actor's first row on the day reached or later
            for day in 0..<days {
                var place = dayStarts[day]
                for actor in 0..<actors {
                    positions[day * (actors + 1) + actor] = Int32(place)
                    firstFrom[day * actors + actor] = first[actor]
                    while place < dayStarts[day + 1] && actorOf[place] == Int32(actor) {
                        place += 1
                        first[actor] += 1
                    }
                }
                positions[day * (actors + 1) + actors] = Int32(place)
            }
            for actor in 0..<actors { firstFrom[days * actors + actor] = Int32(starts[actor + 1]) }
            (self.firstDay, self.days, self.actors) = (firstDay, days, actors)
            (self.times, self.ids, self.numbers, self.positions, self.firstFrom) = (times, ids, numbers, positions, firstFrom)
        }

        /// The number of `actor`'s first matched row at or after `stamp`, or nil when `stamp`
        /// is on a day before every matched row (there is none before it) or after them all
        /// (none after).
        @inline(__always) func firstAtOrAfter(actor: Int, stamp: Stamp) -> Int? {
            let day = Int(LogSealer.day(of: stamp.timeMs) - firstDay)
            guard day >= 0, day < days else { return nil }
            var place = Int(positions[day * (actors + 1) + actor])
            let end = Int(positions[day * (actors + 1) + actor + 1])
            while place < end && (times[place] != stamp.timeMs ? times[place] < stamp.timeMs : ids[place] < stamp.id) { place += 1 }
            return place < end ? Int(numbers[place]) : Int(firstFrom[(day + 1) * actors + actor])
        }
    }
}
