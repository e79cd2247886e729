import Foundation

/// The data tables of a rendered page: table id → rows of cells (header row first), as text.
public func dataTables(_ html: String) -> [String: [[String]]] {
    var tables: [String: [[String]]] = [:]
    var rest = html[...]
    while let open = rest.range(of: "<table id=\"") {
        let idEnd = rest[open.upperBound...].firstIndex(of: "\"")!
        let id = String(rest[open.upperBound..<idEnd])
        let close = rest.range(of: "</table>", range: idEnd..<rest.endIndex)!
        let body = rest[idEnd..<close.lowerBound]
        var rows: [[String]] = []
        let cell = try! NSRegularExpression(pattern: "<t[hd][^>]*>(.*?)</t[hd]>")
        // Rows may carry attributes (`<tr data-step="1">`).
        for row in body.components(separatedBy: "<tr").dropFirst() {
            let range = NSRange(row.startIndex..., in: row)
            rows.append(cell.matches(in: row, range: range).map { match in
                String(row[Range(match.range(at: 1), in: row)!]).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                    .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
            })
        }
        tables[id] = rows
        rest = rest[close.upperBound...]
    }
    return tables
}

/// `12,345` → 12345; nil for anything else.
public func tableInteger(_ cell: String) -> Int64? { Int64(cell.replacingOccurrences(of: ",", with: "")) }
