/// Apple's required-reason APIs ("Describing use of required reason API") and what the client
/// uses of them, for the `NSPrivacyAccessedAPITypes` of its privacy manifest (issue 23).
///
/// The audit of `Sources/HandzAnalyticsClient` and the modules it links (core, SQLite wrapper,
/// compression, signing), 2026-11-25: none of them reads file timestamps, the boot time, disk
/// space, user defaults or the active keyboards. The queue is an SQLite file whose size the
/// client tracks from its own rows, not from the file system; time is `Date()`. So the manifest
/// declares no required-reason API. `RequiredReasonAPITests` scans those sources for the symbols
/// below and fails when one appears without being declared in ``clientUses``.
public enum RequiredReasonAPIs {
    /// An API category, the source symbols that fall under it, and Apple's reason codes.
    public struct Category: Sendable, Equatable {
        public var key: String
        public var symbols: [String]
    }

    public static let categories: [Category] = [
        Category(key: "NSPrivacyAccessedAPICategoryFileTimestamp",
                 symbols: ["creationDate", "modificationDate", "contentModificationDate", "fileModificationDate", "attributesOfItem",
                          "getattrlist", "getattrlistbulk", "fgetattrlist", "fstat(", "fstatat(", "lstat(", "stat("]),
        Category(key: "NSPrivacyAccessedAPICategorySystemBootTime", symbols: ["systemUptime", "mach_absolute_time", "CLOCK_UPTIME"]),
        Category(key: "NSPrivacyAccessedAPICategoryDiskSpace",
                 symbols: ["volumeAvailableCapacity", "volumeTotalCapacity", "systemFreeSize", "systemSize", "NSFileSystemFreeSize",
                          "NSFileSystemSize", "statfs", "statvfs"]),
        Category(key: "NSPrivacyAccessedAPICategoryUserDefaults", symbols: ["UserDefaults", "NSUserDefaults"]),
        Category(key: "NSPrivacyAccessedAPICategoryActiveKeyboards", symbols: ["activeInputModes"]),
    ]

    /// What the client uses: category key → Apple's reason codes. Empty after the audit above.
    public static let clientUses: [String: [String]] = [:]
}
