/// Comparison of secrets and signatures in a time that depends only on their lengths, so a
/// caller cannot learn how many leading bytes it guessed right.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
