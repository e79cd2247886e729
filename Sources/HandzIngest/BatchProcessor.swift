import HandzAnalyticsCore
import HandzStore

/// Validates the events of one batch and sorts them into rows to store and quarantine records,
/// keeping what the receipt needs. Pure: bytes in, values out.
struct BatchProcessor {
    /// Property ids of the fields the store keeps, for one compiled catalog.
    struct FieldIDs {
        let eventID: Int
        let eventTime: Int
        let installID: Int
        /// Each envelope column's property id, in ``EventRows/fields`` order, and whether its
        /// values are UUIDs (stored lower-case); `properties` has id -1 and is the object itself.
        let columns: [(field: EventRows.Field, id: Int, isUUID: Bool)]
        /// Property ids of format `uuid`, lower-cased where they occur inside `properties`.
        let uuidProperties: [Int]

        init(_ catalog: CompiledCatalog) {
            func id(_ name: String) -> Int { catalog.propertyID(named: name) ?? -1 }
            eventID = id("event_id")
            eventTime = id("event_time_utc")
            installID = id(EventColumn.installID.name)
            columns = EventRows.fields.map { field in
                field == .properties ? (field, -1, false) : (field, id(field.name), catalog.catalog.properties[field.name]?.format == .uuid)
            }
            uuidProperties = catalog.uuidPropertyIDs
        }
    }

    /// A rejected event as the receipt reports it.
    struct Rejection {
        let index: Int
        let eventID: String?
        let issues: [ValidationIssue]
    }

    var rows: EventRows
    var rejected: [RejectedEventRecord] = []
    var rejections: [Rejection] = []
    /// Accepted events per install_id, for the per-install rate limit.
    var eventsPerInstall: [String: Double] = [:]

    init(capacity: Int) {
        rows = EventRows(capacity: capacity)
    }

    mutating func process(_ body: UnsafeRawBufferPointer, events: [Range<Int>], validator: inout EventValidator, ids: FieldIDs) {
        for (index, range) in events.enumerated() {
            let event = UnsafeRawBufferPointer(rebasing: body[range])
            let verdict = validator.validate(event)
            guard verdict.isAccepted else {
                rejected.append(RejectedEventRecord(eventName: verdict.eventName, errors: verdict.issues.map { ($0.code.rawValue, $0.path) }, byteSize: range.count))
                let eventID = validator.withString(ids.eventID, in: event) { bytes -> String? in
                    guard let bytes, let base = bytes.baseAddress, UUIDFormat.matches(base, bytes.count) else { return nil }
                    return String(decoding: bytes, as: UTF8.self).lowercased()
                }
                rejections.append(Rejection(index: index, eventID: eventID, issues: verdict.issues))
                continue
            }
            // Accepted: every envelope field is present and well formed, so the reads below succeed.
            let uuid = validator.withString(ids.eventID, in: event) { UUIDFormat.bytes($0!.baseAddress!) }
            let time = validator.withString(ids.eventTime, in: event) { TimestampFormat.parse($0!.baseAddress!, $0!.count)! }
            rows.beginRow(eventID: uuid, eventTimeMs: time.seconds * 1000 + Int64(time.nanoseconds / 1_000_000))
            for column in ids.columns {
                if column.field == .properties {
                    // The object itself, with the UUID values inside it (flow_id, …) in the same
                    // canonical lower case. A UUID written with JSON escapes (`\u0041`) is left as
                    // sent: no client writes one.
                    let properties = validator.propertiesRange!
                    rows.appendField(UnsafeRawBufferPointer(rebasing: event[properties]))
                    for id in ids.uuidProperties {
                        guard let span = validator.span(of: id), span.kind == .string, !span.isEscaped,
                              properties.contains(Int(span.start)) else { continue }
                        let start = Int(span.start) - properties.lowerBound
                        rows.lowercaseInLastField(start..<(start + Int(span.length)))
                    }
                    continue
                }
                validator.withText(column.id, in: event) { value in
                    if column.isUUID, let value { rows.appendLowercasedField(value) } else { rows.appendField(value) }
                }
            }
            // Keyed as stored (lower case); the client sends lower case, so usually no second copy.
            let install = validator.withString(ids.installID, in: event) { bytes -> String in
                let text = String(decoding: bytes!, as: UTF8.self)
                return bytes!.contains(where: { $0 >= 0x41 && $0 <= 0x46 }) ? text.lowercased() : text
            }
            eventsPerInstall[install, default: 0] += 1
        }
    }

    /// Refuses every event with one code and no path: a batch whose `catalog_version` the
    /// server cannot validate against (``CatalogVersionPolicy``). Nothing of the events is read.
    mutating func refuseAll(events: [Range<Int>], code: ValidationErrorCode) {
        let message = code == .catalogVersionRetired
            ? "the app's catalog_version is retired; this app build must stop sending"
            : "the app's catalog_version is not one this server can validate against"
        for (index, range) in events.enumerated() {
            rejected.append(RejectedEventRecord(eventName: nil, errors: [(code.rawValue, "")], byteSize: range.count))
            rejections.append(Rejection(index: index, eventID: nil, issues: [ValidationIssue(code: code, path: "", message: message)]))
        }
    }

    /// The 200 receipt: `{"accepted": N, "duplicates": D, "rejected": [...], "catalog_version": V}`
    /// (V: the catalog the batch was validated against).
    func receipt(_ result: AppendResult, catalogVersion: String) -> String {
        var out = "{\"accepted\":\(result.accepted),\"duplicates\":\(result.duplicates),\"rejected\":["
        for (position, rejection) in rejections.enumerated() {
            if position > 0 { out += "," }
            out += "{\"index\":\(rejection.index),\"event_id\":"
            out += rejection.eventID.map { JSONString.quoted($0) } ?? "null"
            out += ",\"errors\":["
            out += rejection.issues.map { "{\"code\":\"\($0.code.rawValue)\",\"path\":\(JSONString.quoted($0.path))}" }.joined(separator: ",")
            out += "]}"
        }
        return out + "],\"catalog_version\":\(JSONString.quoted(catalogVersion))}"
    }
}
