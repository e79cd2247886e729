/// A catalog's version, `MAJOR.MINOR.PATCH` (semantic versioning applied to the tracking plan,
/// docs/catalog-releases.md): a major release may refuse events an older app sends (a
/// breaking change), a minor release only adds, a patch release changes words, never rules.
public struct CatalogVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `1.3.0`: three decimal numbers of at most 6 digits, no sign, no leading zeros
    /// (except `0` itself), nothing else. Anything else is nil.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard (1...6).contains(part.utf8.count), part.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  part == "0" || part.first != "0", let number = Int(part) else { return nil }
            numbers.append(number)
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers[2])
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    /// How far `self` moved from `old`: the part that went up (nil when not newer).
    public func bump(from old: CatalogVersion) -> CatalogVersionBump? {
        guard old < self else { return nil }
        if major > old.major { return .major }
        if minor > old.minor { return .minor }
        return .patch
    }
}

/// Which part of the version a release raises; ordered by weight.
public enum CatalogVersionBump: String, Sendable, Comparable, CaseIterable {
    case patch
    case minor
    case major

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
