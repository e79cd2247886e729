/// Phone numbers written as digit groups, recognised the way international numbering is built
/// rather than by one country's grouping (issue 32 item 5; CH33 §1 "no PII", §8.1).
///
/// A **digit group** is a maximal run of ASCII digits. Groups are joined into a **stretch** by exactly
/// one separator — space, `-`, `.`, `_` or `/` (the last two are what `slug` and `route_id` allow) —
/// or, after a first group written in parentheses, by `)` and at most one separator:
/// `(020) 7946 0958`. A stretch is a phone number when all of the following hold.
///
/// 1. **Prefix and digit count** (ITU-T E.164: at most 15 digits with the country code, and every
///    national plan's numbers fit inside that):
///    - international `00` (the first group starts `00`, the country code after it starts 1–9, in
///      the same group or the next): 7–15 digits after the `00` — `0044 20 7946 0958`;
///    - trunk prefix `0` (the first group is 2–5 digits, `0` then 1–9): 9–15 digits, the `0`
///      counted — `020 7946 0958`, `030 1234567`, `01 99 00 12 34`, `02 5550 4321`;
///    - none (the first group is 1–5 digits, starting 1–9): 9–15 digits, and at least one group of
///      three or more digits — `201 555 0123`, `612 34 56 78`, `98765 43210`.
///    The prefix is stronger evidence than the digits, so a prefixed stretch needs fewer digits
///    (international) or none of the extra conditions (trunk).
/// 2. **Grouping**: every group after the first has 2–8 digits (1–8 after an international `00`,
///    where the country code or a one-digit area code stands alone: `0033 1 99 00 12 34`). The
///    first group has at most 5 digits (8 with `00`). A group outside these sizes ends the stretch.
/// 3. **Not round quantities**: not every group ends in `0` (`1920_1080_60`, `100_200_300_400`;
///    a leading group that is exactly `00` is not counted).
///
/// Every contiguous stretch of groups is tried, so digits put in front of a number
/// (`step_2_020_7946_0958`) do not hide it. Four things split stretches and are never part of one:
/// - a **calendar date**: `YYYY·MM·DD`, `DD·MM·YYYY` or `MM·DD·YYYY` with a year 1900–2099 and
///   one- or two-digit month and day in range (any of the separators), or `YYYYMMDD` as one group —
///   so `2026_03_01`, `01.03.2026`, `2026_03_01_12_30` and `20260301.12` pass, and the digits after
///   a date are judged on their own;
/// - a **year next to a year** (1900–2099, four digits each, one separator between): a range or
///   list of years, `season_2024_2025`, `cohort_2019_2020_2021`;
/// - a group that touches a `:` with a digit on its other side (a clock time, a port):
///   `2026-03-01T12:00:00.12345678Z` and `12:00_7946_0958` pass;
/// - a group glued to letters that together form a hexadecimal word (UUIDs, hashes, hex ids):
///   in `…-7246-9091-15e2c15a3ef5`, `15` belongs to `15e2c15a3ef5`. Letters that are not hex keep
///   the digits a group: `tel020-7946-0958`, `555-123-4567x89` are flagged.
///
/// Deliberately **not** flagged (the boundary, pinned by `PhoneNumberScanTests`): numbers of 8
/// digits or fewer without `+`/`00` — Danish and Norwegian national numbers (`12 34 56 78`), local
/// numbers without their area code (`555-0123`), dates; stretches of two-digit groups only without
/// a trunk prefix (`step_11_12_13_14_15`); numbers whose every group ends in 0; a number whose
/// groups happen to read as a calendar date. Deliberately flagged: any stretch meeting the rules,
/// whatever it means — `123_456_789`, `100_200_300_401`. Four numbers 0–255 read as an IP address
/// first (`PIIValueScanner` runs that detector before this one). Unbroken runs have their own
/// rule in `PIIValueScanner` (10–15 digits), and `+` numbers theirs (7–15 digits).
///
/// Byte-level and allocation-free: each group start is visited once, and the walk from it stops
/// after 15 digits, so the cost is linear in the value's length.
enum PhoneNumberShape {
    /// The fewest digits a value needs before this detector can match (9 with a trunk prefix or
    /// none; `00` plus 7).
    static let minimumDigits = 9

    /// Whether some stretch of digit groups in the `n` bytes at `p` reads as a phone number.
    static func hasGroupedPhoneNumber(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        var i = 0
        while i < n {
            guard ByteClass.isDigit(ByteClass.at(p, i)) else { i += 1; continue }
            if let end = dateEnd(p, n, i) { i = end; continue }
            if isPhoneNumber(p, n, from: i) { return true }
            i += groupLength(p, n, i)
        }
        return false
    }

    /// The three prefixes a stretch can start with, each with its own digit count.
    private enum Prefix { case international, trunk, none }

    /// Whether a stretch starting at the group at `start` reads as a phone number.
    private static func isPhoneNumber(_ p: UnsafeRawPointer, _ n: Int, from start: Int) -> Bool {
        let first = groupLength(p, n, start)
        guard first <= 8, !isPartOfOtherToken(p, n, start, first), !isYearInList(p, n, start, first) else { return false }
        let prefix: Prefix
        var digits = first
        if ByteClass.at(p, start) == UInt8(ascii: "0") {
            if first >= 2, ByteClass.at(p, start + 1) == UInt8(ascii: "0") {
                // The country code must start 1–9; when the group is just `00`, it is the next one.
                if first > 2, !isNonZeroDigit(ByteClass.at(p, start + 2)) { return false }
                prefix = .international
                digits -= 2
            } else {
                guard first >= 2, first <= 5 else { return false }
                prefix = .trunk
            }
        } else {
            guard first <= 5 else { return false }
            prefix = .none
        }
        var longGroup = first >= 3
        var allRound = prefix == .international && first == 2 ? true : ByteClass.at(p, start + first - 1) == UInt8(ascii: "0")
        var groups = 1
        let parenthesised = at(p, n, start - 1) == UInt8(ascii: "(") && at(p, n, start + first) == UInt8(ascii: ")")
        var end = start + first
        while let next = nextGroup(p, n, after: end, closingParenthesis: groups == 1 && parenthesised) {
            let length = groupLength(p, n, next)
            guard length <= 8, length >= (prefix == .international ? 1 : 2) else { break }
            guard !isPartOfOtherToken(p, n, next, length), !isYearInList(p, n, next, length), dateEnd(p, n, next) == nil else { break }
            if prefix == .international, groups == 1, first == 2, !isNonZeroDigit(ByteClass.at(p, next)) { return false }
            digits += length
            groups += 1
            guard digits <= 15 else { break }
            longGroup = longGroup || length >= 3
            allRound = allRound && ByteClass.at(p, next + length - 1) == UInt8(ascii: "0")
            end = next + length
            if !allRound {
                switch prefix {
                case .international: if digits >= 7 { return true }
                case .trunk: if digits >= 9 { return true }
                case .none: if digits >= 9, longGroup { return true }
                }
            }
        }
        return false
    }

    /// Where the group after a group ending at `end` starts: after one separator, or after `)` and
    /// at most one separator when the first group was parenthesised. `nil` when the stretch ends.
    private static func nextGroup(_ p: UnsafeRawPointer, _ n: Int, after end: Int, closingParenthesis: Bool) -> Int? {
        var i = end
        if closingParenthesis {
            i += 1  // the `)`
            if ByteClass.isDigit(at(p, n, i)) { return i }
        }
        guard isSeparator(at(p, n, i)), ByteClass.isDigit(at(p, n, i + 1)) else { return nil }
        return i + 1
    }

    /// Where a calendar date starting at the group at `start` ends, or `nil` if none starts there:
    /// `YYYYMMDD`, or three groups `YYYY·M·D`, `D·M·YYYY` or `M·D·YYYY` joined by separators.
    static func dateEnd(_ p: UnsafeRawPointer, _ n: Int, _ start: Int) -> Int? {
        let first = groupLength(p, n, start)
        if first == 8 {
            let month = number(p, start + 4, 2), day = number(p, start + 6, 2)
            return isYear(number(p, start, 4)) && (1...12).contains(month) && (1...31).contains(day) ? start + 8 : nil
        }
        guard first == 4 || first <= 2 else { return nil }
        let secondStart = start + first + 1
        guard isSeparator(at(p, n, start + first)), ByteClass.isDigit(at(p, n, secondStart)) else { return nil }
        let second = groupLength(p, n, secondStart)
        let thirdStart = secondStart + second + 1
        guard second <= 2, isSeparator(at(p, n, secondStart + second)), ByteClass.isDigit(at(p, n, thirdStart)) else { return nil }
        let third = groupLength(p, n, thirdStart)
        let a = number(p, start, first), b = number(p, secondStart, second), c = number(p, thirdStart, third)
        let isDate: Bool
        if first == 4 {
            isDate = third <= 2 && isYear(a) && (1...12).contains(b) && (1...31).contains(c)
        } else {
            isDate = third == 4 && isYear(c) && a >= 1 && b >= 1 && ((a <= 31 && b <= 12) || (a <= 12 && b <= 31))
        }
        return isDate ? thirdStart + third : nil
    }

    @inline(__always) private static func isYear(_ value: Int) -> Bool { (1900...2099).contains(value) }

    /// Whether the group at `start` is a year 1900–2099 joined by one separator to another such
    /// group — a range or list of years (`2024_2025`, `cohort_2019_2020_2021`).
    private static func isYearInList(_ p: UnsafeRawPointer, _ n: Int, _ start: Int, _ length: Int) -> Bool {
        func isYearGroup(_ i: Int) -> Bool {
            i >= 0 && i + 4 <= n && ByteClass.isDigit(ByteClass.at(p, i)) && !ByteClass.isDigit(at(p, n, i - 1))
                && groupLength(p, n, i) == 4 && isYear(number(p, i, 4))
        }
        guard length == 4, isYear(number(p, start, 4)) else { return false }
        return (isSeparator(at(p, n, start - 1)) && isYearGroup(start - 5)) || (isSeparator(at(p, n, start + 4)) && isYearGroup(start + 5))
    }

    @inline(__always) private static func isNonZeroDigit(_ b: UInt8) -> Bool { b &- 0x31 < 9 }

    @inline(__always) static func isSeparator(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "/")
    }

    /// Whether the group at `start` belongs to a clock time or port (a `:` with a digit on its
    /// other side: `12:30`, `:8080`) or to a hexadecimal word (it touches a letter, and the whole
    /// word of letters and digits is hex: `15e2c15a3ef5` in a UUID, a hash).
    private static func isPartOfOtherToken(_ p: UnsafeRawPointer, _ n: Int, _ start: Int, _ length: Int) -> Bool {
        let before = at(p, n, start - 1), after = at(p, n, start + length)
        if before == UInt8(ascii: ":"), ByteClass.isDigit(at(p, n, start - 2)) { return true }
        if after == UInt8(ascii: ":"), ByteClass.isDigit(at(p, n, start + length + 1)) { return true }
        guard isLetter(before) || isLetter(after) else { return false }
        var i = start - 1
        while i >= 0, isLetter(ByteClass.at(p, i)) || ByteClass.isDigit(ByteClass.at(p, i)) {
            if !ByteClass.isHex(ByteClass.at(p, i)) { return false }
            i -= 1
        }
        i = start + length
        while i < n, isLetter(ByteClass.at(p, i)) || ByteClass.isDigit(ByteClass.at(p, i)) {
            if !ByteClass.isHex(ByteClass.at(p, i)) { return false }
            i += 1
        }
        return true
    }

    @inline(__always) private static func isLetter(_ b: UInt8) -> Bool { ByteClass.isLower(b) || ByteClass.isUpper(b) }

    /// The number of digits from `start`.
    @inline(__always) static func groupLength(_ p: UnsafeRawPointer, _ n: Int, _ start: Int) -> Int {
        var j = start
        while j < n, ByteClass.isDigit(ByteClass.at(p, j)) { j += 1 }
        return j - start
    }

    /// The decimal value of `count` digits at `start` (the caller has checked they are digits).
    @inline(__always) private static func number(_ p: UnsafeRawPointer, _ start: Int, _ count: Int) -> Int {
        var value = 0
        for k in 0..<count { value = value * 10 + Int(ByteClass.at(p, start + k) &- 0x30) }
        return value
    }

    @inline(__always) private static func at(_ p: UnsafeRawPointer, _ n: Int, _ i: Int) -> UInt8 {
        i >= 0 && i < n ? ByteClass.at(p, i) : 0
    }
}
