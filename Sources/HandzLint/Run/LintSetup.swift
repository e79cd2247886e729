import Foundation

/// The configuration and catalog a lint run uses, found the same way by `handz-analytics lint`
/// and by the plugins' `handz-lint` tool:
/// - configuration: the given file, else the nearest `.handz-analytics.yml` walking up from
///   `searchFrom` (the target's directory for the build plugin), else the defaults;
/// - catalog: the given directory, else the configuration's `catalog:`, else `fallbackCatalog`.
public struct LintSetup: Sendable {
    public var configuration: LintConfiguration
    /// The configuration file used, if any.
    public var configurationPath: String?
    public var catalogDirectory: String

    public static func resolve(
        configurationPath: String?, searchFrom: String, catalogDirectory: String?, fallbackCatalog: () throws -> String
    ) throws -> LintSetup {
        let path = configurationPath ?? LintConfiguration.find(from: searchFrom)
        let configuration = try path.map { path throws(LintConfigurationError) in try LintConfiguration.load(path: path) } ?? .standard
        let catalog = try catalogDirectory ?? configuration.catalogDirectory ?? fallbackCatalog()
        return LintSetup(configuration: configuration, configurationPath: path, catalogDirectory: catalog)
    }
}
