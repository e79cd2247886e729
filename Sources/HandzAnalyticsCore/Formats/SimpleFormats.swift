/// Byte-level matchers for the small grammars of ``StringFormat``. Each mirrors the format's
/// `pattern` exactly; `StringFormatTests` checks them against each other.
@usableFromInline
enum SimpleFormats {
    /// `[a-z0-9][a-z0-9_]{0,63}`
    @inlinable static func slug(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        guard n >= 1, n <= 64 else { return false }
        let first = ByteClass.at(p, 0)
        guard ByteClass.isLower(first) || ByteClass.isDigit(first) else { return false }
        for i in 1..<n {
            let b = ByteClass.at(p, i)
            if !(ByteClass.isLower(b) || ByteClass.isDigit(b) || b == UInt8(ascii: "_")) { return false }
        }
        return true
    }

    /// `[a-z][a-z0-9_]{0,31}(/[a-z0-9_]{1,32}){0,3}`
    @inlinable static func routeID(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        guard n >= 1, ByteClass.isLower(ByteClass.at(p, 0)) else { return false }
        var segment = 0
        var length = 0
        for i in 0..<n {
            let b = ByteClass.at(p, i)
            if b == UInt8(ascii: "/") {
                guard length >= 1, segment < 3 else { return false }
                segment += 1
                length = 0
            } else if ByteClass.isLower(b) || ByteClass.isDigit(b) || b == UInt8(ascii: "_") {
                length += 1
                if length > 32 { return false }
            } else {
                return false
            }
        }
        return length >= 1
    }

    /// Reads dot-separated decimal components. Returns the number of components, or -1.
    @inlinable static func components(_ p: UnsafeRawPointer, _ n: Int, maxDigits: Int, allowLeadingZero: Bool, maxCount: Int) -> Int {
        var count = 0
        var digits = 0
        var leadingZero = false
        var i = 0
        while i <= n {
            let b: UInt8 = i < n ? ByteClass.at(p, i) : UInt8(ascii: ".")
            if b == UInt8(ascii: ".") {
                guard digits >= 1 else { return -1 }
                if leadingZero && digits > 1 && !allowLeadingZero { return -1 }
                count += 1
                if count > maxCount { return -1 }
                digits = 0
            } else if ByteClass.isDigit(b) {
                if digits == 0 { leadingZero = b == UInt8(ascii: "0") }
                digits += 1
                if digits > maxDigits { return -1 }
            } else {
                return -1
            }
            i += 1
        }
        return count
    }

    /// `(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})(\.(0|[1-9][0-9]{0,3}))?`
    @inlinable static func appVersion(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        components(p, n, maxDigits: 4, allowLeadingZero: false, maxCount: 3) >= 2
    }

    /// `[0-9]{1,9}(\.[0-9]{1,9}){0,2}`
    @inlinable static func buildNumber(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        components(p, n, maxDigits: 9, allowLeadingZero: true, maxCount: 3) >= 1
    }

    /// `[a-z]{2,3}(_[A-Z][a-z]{3})?(_([A-Z]{2}|[0-9]{3}))?`
    @inlinable static func locale(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        var i = 0
        while i < n, ByteClass.isLower(ByteClass.at(p, i)) { i += 1 }
        guard i == 2 || i == 3 else { return false }
        if i == n { return true }
        guard ByteClass.at(p, i) == UInt8(ascii: "_") else { return false }
        i += 1
        // Optional script subtag: one upper then three lower.
        if n - i >= 4, ByteClass.isUpper(ByteClass.at(p, i)),
           ByteClass.isLower(ByteClass.at(p, i + 1)), ByteClass.isLower(ByteClass.at(p, i + 2)), ByteClass.isLower(ByteClass.at(p, i + 3)) {
            i += 4
            if i == n { return true }
            guard ByteClass.at(p, i) == UInt8(ascii: "_") else { return false }
            i += 1
        }
        let rest = n - i
        if rest == 2 { return ByteClass.isUpper(ByteClass.at(p, i)) && ByteClass.isUpper(ByteClass.at(p, i + 1)) }
        if rest == 3 { return ByteClass.isDigit(ByteClass.at(p, i)) && ByteClass.isDigit(ByteClass.at(p, i + 1)) && ByteClass.isDigit(ByteClass.at(p, i + 2)) }
        return false
    }

    @inlinable static func hasPrefix(_ p: UnsafeRawPointer, _ n: Int, _ prefix: StaticString) -> Bool {
        let m = prefix.utf8CodeUnitCount
        guard n >= m else { return false }
        return bytesEqual(p, UnsafeRawPointer(prefix.utf8Start), m)
    }

    /// `(iOS|iPadOS) [0-9]{1,2}\.[0-9]{1,2}(\.[0-9]{1,2})?`
    @inlinable static func osVersion(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        let skip: Int
        if hasPrefix(p, n, "iOS ") { skip = 4 } else if hasPrefix(p, n, "iPadOS ") { skip = 7 } else { return false }
        return components(p + skip, n - skip, maxDigits: 2, allowLeadingZero: true, maxCount: 3) >= 2
    }

    /// `((iPhone|iPad|iPod)[0-9]{1,2},[0-9]{1,2}|arm64|x86_64)`
    @inlinable static func deviceModel(_ p: UnsafeRawPointer, _ n: Int) -> Bool {
        if n == 5, hasPrefix(p, n, "arm64") { return true }
        if n == 6, hasPrefix(p, n, "x86_64") { return true }
        let skip: Int
        if hasPrefix(p, n, "iPhone") {
            skip = 6
        } else if hasPrefix(p, n, "iPad") || hasPrefix(p, n, "iPod") {
            skip = 4
        } else {
            return false
        }
        var i = skip
        var major = 0
        while i < n, ByteClass.isDigit(ByteClass.at(p, i)) { major += 1; i += 1 }
        guard major >= 1, major <= 2, i < n, ByteClass.at(p, i) == UInt8(ascii: ",") else { return false }
        i += 1
        var minor = 0
        while i < n, ByteClass.isDigit(ByteClass.at(p, i)) { minor += 1; i += 1 }
        return minor >= 1 && minor <= 2 && i == n
    }
}
