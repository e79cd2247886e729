extension Lint {
    /// Every property has exactly one of Apple's data types; only Apple's documented types and
    /// purposes are named; nothing is used for tracking (CH33 §1: no advertising identifier, §2:
    /// first-party analytics only). The privacy manifest and the App Store answers are generated
    /// from this, so a property without a type would silently go undeclared.
    mutating func checkCollectedData(_ policy: CollectedDataPolicy) {
        let file = CatalogLocation(file: "privacy.yaml", line: 1)
        if policy.types.isEmpty {
            error(file, "collected_data is missing: every property needs an Apple data type (issue 23)")
            return
        }
        var owner: [String: String] = [:]
        for type in policy.types {
            if CollectedDataPolicy.appleDataTypes[type.key] == nil {
                error(type.location, "collected_data: '\(type.key)' is not one of Apple's collected data types")
            }
            for purpose in type.purposes where CollectedDataPolicy.applePurposes[purpose] == nil {
                error(type.location, "collected_data.\(type.key): '\(purpose)' is not one of Apple's purposes")
            }
            if type.purposes.isEmpty { error(type.location, "collected_data.\(type.key): no purpose") }
            if type.tracking { error(type.location, "collected_data.\(type.key): tracking must be false (CH33 §1, §2)") }
            if type.properties.isEmpty { error(type.location, "collected_data.\(type.key): no properties (remove the type)") }
            for property in type.properties {
                if catalog.properties[property] == nil {
                    error(type.location, "collected_data.\(type.key): '\(property)' is not a property in properties.yaml")
                } else if let other = owner[property] {
                    error(type.location, "collected_data: '\(property)' is classified twice (\(other), \(type.key))")
                } else {
                    owner[property] = type.key
                }
            }
        }
        for name in catalog.properties.keys.sorted() where owner[name] == nil {
            error(sources.property(name), "property '\(name)' has no Apple data type: add it to collected_data in privacy.yaml (issue 23)")
        }
    }
}
