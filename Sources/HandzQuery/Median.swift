/// The median every engine agrees on: the **lower median** of integers. For n values sorted
/// ascending it is the value at 1-based position ⌈n/2⌉ (for even n, the lower of the two middle
/// values), so it is always one of the values and never a fraction. Computed with
/// `ROW_NUMBER()` and `COUNT(*)` windows and integer comparisons only — no interpolating
/// percentile function, whose results differ between engines. (ClickHouse funnels use
/// `quantileExactLow(0.5)`, which picks exactly this value.)
public enum Median {
    /// The lower median of `values`, or nil when empty.
    public static func lower(_ values: [Int64]) -> Int64? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[(values.count + 1) / 2 - 1]
    }
}

enum MedianSQL {
    /// `name AS (SELECT *, r, n FROM source)`: row number and count per partition, by `value`.
    static func rankedCTE(name: String, source: String, partition: String, value: String, carrying extra: [String] = []) -> String {
        """
        \(name) AS (
          SELECT \(([partition, value] + extra).joined(separator: ", ")), ROW_NUMBER() OVER (PARTITION BY \(partition) ORDER BY \(value)) AS r,
                 COUNT(*) OVER (PARTITION BY \(partition)) AS n
          FROM \(source)
        )
        """
    }

    /// The aggregate that picks the lower median from a `rankedCTE`: position r with
    /// 2r = n or 2r = n + 1, i.e. r = ⌈n/2⌉ — no integer division needed.
    static func pick(value: String) -> String {
        "MAX(CASE WHEN r * 2 = n OR r * 2 = n + 1 THEN \(value) END)"
    }
}
