/// `event_time_utc`: ISO-8601 in UTC, `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|+00:00)`, a real calendar
/// date (leap years included) in 2000–2099, hours 00–23, seconds 00–59 (no leap second).
/// Years outside 2000–2099 are device clock garbage, not analytics.
public enum TimestampFormat {
    @inlinable
    public static func matches(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        parse(p, n) != nil
    }

    /// Seconds and nanoseconds since 1970-01-01T00:00:00Z, or nil when not valid.
    @inlinable
    public static func parse(_ p: UnsafeRawPointer, _ n: Int) -> (seconds: Int64, nanoseconds: Int32)? {
        guard n >= 20 else { return nil }
        @inline(__always) func digit(_ i: Int) -> Int? {
            let b = ByteClass.at(p, i)
            return ByteClass.isDigit(b) ? Int(b &- 0x30) : nil
        }
        @inline(__always) func two(_ i: Int) -> Int? {
            guard let a = digit(i), let b = digit(i + 1) else { return nil }
            return a * 10 + b
        }
        guard ByteClass.at(p, 0) == UInt8(ascii: "2"), ByteClass.at(p, 1) == UInt8(ascii: "0"),
              let yy = two(2), ByteClass.at(p, 4) == UInt8(ascii: "-"),
              let month = two(5), ByteClass.at(p, 7) == UInt8(ascii: "-"),
              let day = two(8), ByteClass.at(p, 10) == UInt8(ascii: "T"),
              let hour = two(11), ByteClass.at(p, 13) == UInt8(ascii: ":"),
              let minute = two(14), ByteClass.at(p, 16) == UInt8(ascii: ":"),
              let second = two(17)
        else { return nil }
        let year = 2000 + yy
        guard month >= 1, month <= 12, day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        var i = 19
        var nanos = 0
        if ByteClass.at(p, i) == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < n, let d = digit(i) {
                digits += 1
                if digits > 9 { return nil }
                nanos = nanos * 10 + d
                i += 1
            }
            guard digits >= 1 else { return nil }
            for _ in digits..<9 { nanos *= 10 }
        }
        let rest = n - i
        if rest == 1 {
            guard ByteClass.at(p, i) == UInt8(ascii: "Z") else { return nil }
        } else if rest == 6 {
            guard ByteClass.at(p, i) == UInt8(ascii: "+"), ByteClass.at(p, i + 1) == UInt8(ascii: "0"),
                  ByteClass.at(p, i + 2) == UInt8(ascii: "0"), ByteClass.at(p, i + 3) == UInt8(ascii: ":"),
                  ByteClass.at(p, i + 4) == UInt8(ascii: "0"), ByteClass.at(p, i + 5) == UInt8(ascii: "0")
            else { return nil }
        } else {
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return (seconds, Int32(nanos))
    }

    @inlinable
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 4, 6, 9, 11: return 30
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    @inlinable
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date of a day count since 1970-01-01 (inverse of `daysFromCivil`).
    @inlinable
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SS[.fff]Z` with `fractionDigits`
    /// digits of `nanoseconds` (0, 3, 6 or 9).
    public static func format(seconds: Int64, nanoseconds: Int32 = 0, fractionDigits: Int = 3) -> String {
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let date = civilFromDays(days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        var out = "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T"
        out += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if fractionDigits > 0 {
            var fraction = Int(nanoseconds)
            for _ in fractionDigits..<9 { fraction /= 10 }
            out += "." + pad(fraction, fractionDigits)
        }
        return out + "Z"
    }
}
