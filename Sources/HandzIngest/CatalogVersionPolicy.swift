import HandzAnalyticsCore

/// Which catalog a batch is validated against, from the `catalog_version` its app sent
/// (docs/catalog-releases.md, "Which catalog validates a batch"). Pure.
///
/// - No version (apps before catalog 1.3.0's client, `import`): the current catalog, as before.
/// - A version the server keeps (the current catalog or a release): that catalog — unless the
///   current catalog lists it in `retired_versions`: refused, `catalog_version_retired`.
/// - A newer version of a major the server knows: the newest catalog of that major. A newer
///   minor or patch only adds (the release lint enforces it), so every event such an app sends
///   that the server can judge is judged exactly; events that use the additions are refused by
///   their own rule (`unknown_property`, `invalid_enum`) and counted, never dropped silently.
///   Refusing the whole batch instead would lose every event of an app released one step before
///   its server — the docs say to deploy the server first, and this bounds the cost when not.
/// - Anything else (not `MAJOR.MINOR.PATCH`, a newer major, an old version not kept):
///   refused, `unknown_catalog_version`.
public enum CatalogVersionPolicy {
    public enum Choice: Sendable, Equatable {
        /// Validate with the catalog of this version.
        case use(String)
        /// Refuse every event of the batch with this code.
        case refuse(ValidationErrorCode)
    }

    public static func choose(claimed: String?, current: String, kept: [String], retired: [String]) -> Choice {
        guard let claimed else { return .use(current) }
        if retired.contains(claimed) { return .refuse(.catalogVersionRetired) }
        if claimed == current || kept.contains(claimed) { return .use(claimed) }
        guard let version = CatalogVersion(claimed) else { return .refuse(.unknownCatalogVersion) }
        let sameMajor = ([current] + kept).compactMap(CatalogVersion.init).filter { $0.major == version.major }
        guard let newest = sameMajor.max(), newest < version, !retired.contains(newest.description) else {
            return .refuse(.unknownCatalogVersion)
        }
        return .use(newest.description)
    }
}
