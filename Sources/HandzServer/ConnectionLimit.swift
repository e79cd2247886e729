import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The most connections the server holds open at once (`serve --max-connections`). Past it, the
/// server stops accepting: new connections wait in the listen backlog (256) and are accepted as
/// others close — the idle and body timeouts bound how long anyone can hold one — and the kernel
/// refuses them once the backlog is full. The default keeps well inside the process's descriptor
/// limit, which the store, the logs and the PostgreSQL pool also need.
public enum ConnectionLimit {
    public static func defaultMaximum() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_000 }
        let soft = limit.rlim_cur > rlim_t(1 << 30) ? 1 << 30 : Int(limit.rlim_cur)
        return max(16, min(10_000, soft - 128))
    }
}
