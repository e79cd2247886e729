/// An accessible data table: caption, column headers with scope, first column as row header.
/// Tables of more than ``openRowLimit`` rows are collapsed under their caption (`<details>`), so a
/// daily table does not push the next chart off the screen (issue 16 §4); screen readers and
/// the browser's find still reach them.
struct Table {
    var caption: String
    var columns: [String]
    var rows: [[String]] = []
    /// Per row, a `data-` attribute naming it for tests and scripts (`data-step="2"`), or nil.
    var rowKeys: [(name: String, value: String)?] = []
    /// Per column, a class for its cells (`actors`, `previous`, `delta`), or nil.
    var columnClasses: [String?] = []
    /// `data-` attributes of the table itself (`data-funnel="F0"`).
    var attributes: [(name: String, value: String)] = []

    static let openRowLimit = 8

    mutating func append(_ row: [String], key: (name: String, value: String)? = nil) {
        while rowKeys.count < rows.count { rowKeys.append(nil) }
        rows.append(row)
        rowKeys.append(key)
    }

    func html(id: String) -> String {
        var out = "<table id=\"\(id)\" class=\"data\""
        for attribute in attributes { out += " data-\(attribute.name)=\"\(HTML.escape(attribute.value))\"" }
        out += ">\n<caption>\(HTML.escape(caption))</caption>\n<thead><tr>"
        for column in columns { out += "<th scope=\"col\">\(HTML.escape(column))</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for (number, row) in rows.enumerated() {
            if number < rowKeys.count, let key = rowKeys[number] {
                out += "<tr data-\(key.name)=\"\(HTML.escape(key.value))\">"
            } else {
                out += "<tr>"
            }
            for (index, cell) in row.enumerated() {
                let cellClass = index < columnClasses.count ? columnClasses[index].map { " class=\"\($0)\"" } ?? "" : ""
                out += index == 0 ? "<th scope=\"row\"\(cellClass)>\(HTML.escape(cell))</th>" : "<td\(cellClass)>\(HTML.escape(cell))</td>"
            }
            out += "</tr>\n"
        }
        out += "</tbody>\n</table>\n"
        guard rows.count > Self.openRowLimit else { return out }
        return "<details class=\"table\"><summary>Table: \(HTML.escape(caption)) (\(Format.integer(Int64(rows.count))) rows)</summary>\n" + out + "</details>\n"
    }
}
