import Hummingbird
import NIOCore

/// The request context: Hummingbird's own storage plus the connection, so a 413 for a declared
/// oversized body can close the connection instead of draining the body.
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
