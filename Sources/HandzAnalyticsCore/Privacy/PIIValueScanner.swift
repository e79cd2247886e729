/// What the PII value scan found.
public enum PIIKind: String, Sendable, CaseIterable {
    case emailAddress = "email address"
    case phoneNumber = "phone number"
    case cardNumber = "card-like number"
    case ipAddress = "IP address"
}

/// The PII value scan, run on every string value that is not a reviewed enum value — even values
/// that pass their format (CH33 §1 "no PII", §8.1).
///
/// What it flags, precisely:
/// - **email address**: `local@domain.tld` — a local-part character before an `@`, then dot-separated
///   labels ending in a top-level label of two or more letters;
/// - **phone number**: `+` followed by 7–15 digits (spaces, `-`, `.`, `(`, `)` between them); any
///   unbroken run of 10–15 digits; or digit groups joined by single separators (space, `-`, `.`,
///   `_`, `/`) that read as a number by E.164 length and grouping: 7–15 digits after an international
///   `00`, 9–15 with a trunk prefix `0` (`020 7946 0958`, `030_1234567`, `01.99.00.12.34`), 9–15
///   without a prefix when one group has three or more digits (`201-555-0123`, `612 34 56 78`) —
///   calendar dates, clock times and round quantities excepted. `PhoneNumberShape` states the
///   rule and its boundary exactly (issue 32 item 5: the North American grouping alone let
///   `settings/020_7946_0958` through);
/// - **card-like number**: an unbroken run of 16 or more digits, or four groups of four digits
///   separated by spaces or hyphens;
/// - **IP address**: a dotted quad of numbers 0–255 (not part of a longer dotted run), or an IPv6
///   address (eight hex groups, or a `::` abbreviation).
///
/// - **the same written with `_` or `/`**: the separators the `slug` and `route_id` formats allow
///   stand for any separator above — `settings/555_123_4567` (phone), `card/4111_1111_1111_1111`
///   (card), `ip/192_168_1_10` (IP), `u/john_doe@gmail_com` — and an address spelled out with
///   `at` (and optionally `dot`) between separators counts as an email when it ends in a common
///   top-level domain: `u/john_doe_at_gmail_com`. The TLD list keeps ordinary slugs such as
///   `look_at_me_now` out. (Issue 21 §8; the other formats' separators — `.` in versions, `-` in
///   UUIDs — were already separators.)
///
/// The detectors run cheapest and most specific first: email, unbroken runs and card groups, `+`
/// numbers, IPv4 and IPv6 (so four numbers 0–255 read as an IP address, whatever else they could
/// be), the same with `_` and `/` as separators, and the digit-group phone rule last.
///
/// Deliberately not flagged: unbroken runs of up to 9 digits (counts, build numbers, dates), digit
/// groups of 8 digits or fewer without `+`/`00` (dates, `555-0123`, Danish and Norwegian national
/// numbers), ISO-8601 timestamps and versions. The validator does not scan a value that matched a
/// format whose grammar rules every detector out (``StringFormat/canCarryPII``); for `uuid` that
/// matters: about 1 in 50 random UUIDs trips a detector by coincidence (1 in 280 has an all-digit
/// last group, a 12-digit run; others have three all-digit groups in the middle).
public enum PIIValueScanner {
    public static func scan(_ value: String) -> PIIKind? {
        var value = value
        return value.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return scan(UnsafeRawPointer(base), buffer.count)
        }
    }

    public static func scan(_ p: UnsafeRawPointer, _ n: Int) -> PIIKind? {
        // Prefilter: every detector needs an '@', two colons, three dots, a '+', or 7+ digits —
        // or, read with `_` and `/` as separators, 10+ digits, 4+ digits in 3+ groups, an '@', or
        // an `at` token.
        var at = false, plus = false
        var colons = 0, dots = 0, digits = 0, separators = 0
        for i in 0..<n {
            let b = ByteClass.at(p, i)
            if ByteClass.isDigit(b) { digits += 1 } else if b == UInt8(ascii: "_") || b == UInt8(ascii: "/") { separators += 1 } else if b == UInt8(ascii: "@") { at = true } else if b == UInt8(ascii: ":") { colons += 1 } else if b == UInt8(ascii: ".") { dots += 1 } else if b == UInt8(ascii: "+") { plus = true }
        }
        let separated = separators > 0 && (digits >= 10 || at || (separators + dots >= 3 && (digits >= 4 || hasAtToken(p, n))))
        if !(at || plus || colons >= 2 || dots >= 3 || digits >= 7 || separated) { return nil }
        if at, hasEmail(p, n) { return .emailAddress }
        if digits >= 10 {
            if let kind = digitRun(p, n) { return kind }
            if hasCardGroups(p, n) { return .cardNumber }
        }
        if digits >= 7, plus, hasInternationalPhone(p, n) { return .phoneNumber }
        if dots >= 3, hasIPv4(p, n) { return .ipAddress }
        if colons >= 2, hasIPv6(p, n) { return .ipAddress }
        if separated, let kind = scanWithFormatSeparators(p, n, digits: digits) { return kind }
        // Reads every separator itself, `_` and `/` included (issue 32 item 5).
        if digits >= PhoneNumberShape.minimumDigits, PhoneNumberShape.hasGroupedPhoneNumber(p, n) { return .phoneNumber }
        return nil
    }

    /// Whether `at` stands alone between separators (`_`, `/`, `.`), as in `john_at_gmail_com`.
    static func hasAtToken(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        func isSeparator(_ i: Int) -> Bool {
            let b = at(p, n, i)
            return b == UInt8(ascii: "_") || b == UInt8(ascii: "/") || b == UInt8(ascii: ".")
        }
        guard n >= 4 else { return false }
        for i in 1..<(n - 2) where (ByteClass.at(p, i) | 0x20) == UInt8(ascii: "a") && (ByteClass.at(p, i + 1) | 0x20) == UInt8(ascii: "t") {
            if isSeparator(i - 1) && isSeparator(i + 2) { return true }
        }
        return false
    }

    /// The detectors again with `_` and `/` read as separators: once as `-` (card groups and `+`
    /// numbers) and once as `.` (IPv4, and email addresses with `@` or a spelled-out `at`). The
    /// digit-group phone rule (`PhoneNumberShape`) reads `_` and `/` itself.
    static func scanWithFormatSeparators(_ p: UnsafeRawPointer, _ n: Int, digits: Int) -> PIIKind? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(n, 1)) { copy in
            /// A copy with each `_` or `/` replaced by `between` when digits stand on both sides,
            /// by `elsewhere` otherwise (so `ip/192_168_1_10` reads `ip 192.168.1.10`, and the
            /// dotted quad is not taken for part of a longer dotted run).
            func normalized(between: UInt8, elsewhere: UInt8) -> UnsafeRawPointer {
                for i in 0..<n {
                    let b = ByteClass.at(p, i)
                    if b == UInt8(ascii: "_") || b == UInt8(ascii: "/") {
                        copy[i] = ByteClass.isDigit(at(p, n, i - 1)) && ByteClass.isDigit(at(p, n, i + 1)) ? between : elsewhere
                    } else {
                        copy[i] = b
                    }
                }
                return UnsafeRawPointer(copy.baseAddress!)
            }
            if digits >= 10, hasCardGroups(normalized(between: UInt8(ascii: "-"), elsewhere: UInt8(ascii: " ")), n) { return .cardNumber }
            if digits >= 7, hasInternationalPhone(normalized(between: UInt8(ascii: "-"), elsewhere: UInt8(ascii: " ")), n) { return .phoneNumber }
            if digits >= 4, hasIPv4(normalized(between: UInt8(ascii: "."), elsewhere: UInt8(ascii: " ")), n) { return .ipAddress }
            let email = UnsafeRawBufferPointer(start: p, count: n).contains(UInt8(ascii: "@")) || hasAtToken(p, n)
            if email {
                let q = normalized(between: UInt8(ascii: "."), elsewhere: UInt8(ascii: "."))
                if hasEmail(q, n) || hasSpelledOutEmail(q, n) { return .emailAddress }
            }
            return nil
        }
    }

    /// Top-level domains common enough that `name.at.domain.<tld>` is read as an address.
    static let commonTopLevelDomains: [[UInt8]] = [
        "com", "net", "org", "edu", "gov", "mil", "io", "co", "me", "us", "uk", "ca", "au", "de", "fr", "es", "it",
        "nl", "se", "no", "dk", "fi", "pl", "br", "mx", "ar", "jp", "cn", "in", "ru", "ch", "be", "ie", "nz", "za",
        "info", "biz",
    ].map { Array($0.utf8) }

    static let atWord: [UInt8] = Array("at".utf8)
    static let dotWord: [UInt8] = Array("dot".utf8)

    /// `local.at.domain[.dot].tld` in `.`-separated tokens: a token `at` with at least one token
    /// before it and at least two domain labels after it (ignoring `dot` tokens), all letters,
    /// digits or `-`, the last a common top-level domain. Walks the bytes in place.
    static func hasSpelledOutEmail(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        func lower(_ i: Int) -> UInt8 { ByteClass.at(p, i) | (ByteClass.isUpper(ByteClass.at(p, i)) ? 0x20 : 0) }
        func token(_ start: Int, _ end: Int, is word: [UInt8]) -> Bool {
            guard end - start == word.count else { return false }
            for k in 0..<word.count where lower(start + k) != word[k] { return false }
            return true
        }
        var start = 0
        var tokensBefore = 0
        while start < n {
            var end = start
            while end < n, ByteClass.at(p, end) != UInt8(ascii: ".") { end += 1 }
            if end > start {
                if tokensBefore > 0, token(start, end, is: atWord) {
                    // The domain labels after `at`.
                    var labels = 0
                    var lastStart = 0, lastEnd = 0
                    var valid = true
                    var cursor = end + 1
                    while cursor < n && valid {
                        var labelEnd = cursor
                        while labelEnd < n, ByteClass.at(p, labelEnd) != UInt8(ascii: ".") {
                            let b = ByteClass.at(p, labelEnd)
                            if !(isLetter(b) || ByteClass.isDigit(b) || b == UInt8(ascii: "-")) { valid = false }
                            labelEnd += 1
                        }
                        if labelEnd > cursor, !token(cursor, labelEnd, is: dotWord) {
                            labels += 1
                            lastStart = cursor
                            lastEnd = labelEnd
                        }
                        cursor = labelEnd + 1
                    }
                    if valid, labels >= 2, commonTopLevelDomains.contains(where: { token(lastStart, lastEnd, is: $0) }) { return true }
                }
                tokensBefore += 1
            }
            start = end + 1
        }
        return false
    }

    @inline(__always) static func at(_ p: UnsafeRawPointer, _ n: Int, _ i: Int) -> UInt8 {
        i >= 0 && i < n ? ByteClass.at(p, i) : 0
    }

    static func isLetter(_ b: UInt8) -> Bool { ByteClass.isLower(b) || ByteClass.isUpper(b) }

    static func hasEmail(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        for i in 1..<max(n, 1) where ByteClass.at(p, i) == UInt8(ascii: "@") {
            let before = ByteClass.at(p, i - 1)
            guard isLetter(before) || ByteClass.isDigit(before) || "._%+-".utf8.contains(before) else { continue }
            var j = i + 1
            var labels = 0
            var lastLabelLetters = 0
            var lastLabelLength = 0
            while j < n {
                let start = j
                var letters = 0
                while j < n {
                    let b = ByteClass.at(p, j)
                    guard isLetter(b) || ByteClass.isDigit(b) || b == UInt8(ascii: "-") else { break }
                    if isLetter(b) { letters += 1 }
                    j += 1
                }
                guard j > start else { break }
                labels += 1
                lastLabelLetters = letters
                lastLabelLength = j - start
                if j < n, ByteClass.at(p, j) == UInt8(ascii: "."), j + 1 < n { j += 1 } else { break }
            }
            if labels >= 2, lastLabelLength >= 2, lastLabelLetters == lastLabelLength { return true }
        }
        return false
    }

    /// The longest unbroken digit run decides: 10–15 digits read as a phone number, 16+ as a card.
    static func digitRun(_ p: UnsafeRawPointer, _ n: Int) -> PIIKind? {
        var run = 0
        var longest = 0
        for i in 0..<n {
            if ByteClass.isDigit(ByteClass.at(p, i)) { run += 1; longest = max(longest, run) } else { run = 0 }
        }
        if longest >= 16 { return .cardNumber }
        if longest >= 10 { return .phoneNumber }
        return nil
    }

    /// Four groups of exactly four digits joined by one space or hyphen.
    static func hasCardGroups(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        guard n >= 19 else { return false }
        for start in 0...(n - 19) where !ByteClass.isDigit(at(p, n, start - 1)) {
            var ok = true
            for k in 0..<19 {
                let b = ByteClass.at(p, start + k)
                if k % 5 == 4 { ok = b == UInt8(ascii: " ") || b == UInt8(ascii: "-") } else { ok = ByteClass.isDigit(b) }
                if !ok { break }
            }
            if ok, !ByteClass.isDigit(at(p, n, start + 19)) { return true }
        }
        return false
    }

    static func isPhoneSeparator(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "(") || b == UInt8(ascii: ")")
    }

    /// `+` then 7–15 digits, separators allowed between them.
    static func hasInternationalPhone(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        for i in 0..<n where ByteClass.at(p, i) == UInt8(ascii: "+") {
            var j = i + 1
            var digits = 0
            var separatorsInARow = 0
            guard j < n, ByteClass.isDigit(ByteClass.at(p, j)) || ByteClass.at(p, j) == UInt8(ascii: "(") else { continue }
            while j < n {
                let b = ByteClass.at(p, j)
                if ByteClass.isDigit(b) {
                    digits += 1
                    separatorsInARow = 0
                } else if isPhoneSeparator(b), separatorsInARow < 2 {
                    separatorsInARow += 1
                } else {
                    break
                }
                j += 1
            }
            if digits >= 7 && digits <= 15 { return true }
        }
        return false
    }

    static func hasIPv4(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        for i in 0..<n where ByteClass.isDigit(ByteClass.at(p, i)) {
            let previous = at(p, n, i - 1)
            guard !ByteClass.isDigit(previous), previous != UInt8(ascii: ".") else { continue }
            var j = i
            var parts = 0
            while parts < 4 {
                var value = 0
                var length = 0
                while j < n, ByteClass.isDigit(ByteClass.at(p, j)), length < 4 {
                    value = value * 10 + Int(ByteClass.at(p, j) &- 0x30)
                    length += 1
                    j += 1
                }
                guard length >= 1, length <= 3, value <= 255 else { break }
                parts += 1
                if parts < 4 {
                    guard at(p, n, j) == UInt8(ascii: ".") else { break }
                    j += 1
                }
            }
            if parts == 4 {
                let next = at(p, n, j)
                let following = at(p, n, j + 1)
                if !ByteClass.isDigit(next), !(next == UInt8(ascii: ".") && ByteClass.isDigit(following)) { return true }
            }
        }
        return false
    }

    static func hasIPv6(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        var i = 0
        while i < n {
            let b = ByteClass.at(p, i)
            guard ByteClass.isHex(b) || b == UInt8(ascii: ":") else { i += 1; continue }
            // A maximal run of hex digits and colons.
            var colons = 0, groups = 0, groupLength = 0
            var doubleColon = false, valid = true
            var previousColon = false
            var j = i
            while j < n {
                let c = ByteClass.at(p, j)
                if c == UInt8(ascii: ":") {
                    if previousColon { if doubleColon { valid = false }; doubleColon = true }
                    colons += 1
                    if groupLength > 0 { groups += 1 }
                    groupLength = 0
                    previousColon = true
                } else if ByteClass.isHex(c) {
                    groupLength += 1
                    if groupLength > 4 { valid = false }
                    previousColon = false
                } else {
                    break
                }
                j += 1
            }
            if groupLength > 0 { groups += 1 }
            if valid, colons <= 7 {
                if doubleColon, groups >= 1 { return true }
                if colons == 7, groups == 8 { return true }
            }
            i = j
        }
        return false
    }
}
