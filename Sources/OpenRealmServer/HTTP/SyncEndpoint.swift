import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import OpenRealmWire

/// The sync WebSocket: `GET /api/client/v2.0/app/<appId>/realm-sync` upgraded to a
/// WebSocket whose binary messages each carry one protocol frame. The protocol logic is
/// ``SyncConnection``; this only moves frames between it and the socket.
enum SyncEndpoint {
    /// What one sync connection may hold and ask for (``ServerConfiguration`` has them).
    struct Limits: Sendable {
        /// Seconds a connection has to send its first `bind`.
        var bindTimeout: Double = 30
        /// Frames and decoded bytes read but not handled yet.
        var inboundFrames = 256
        var inboundBytes = 32 << 20
        /// Encoded bytes waiting to be sent, and the seconds a queued frame may wait.
        var outboundBytes = 64 << 20
        var drainTimeout: Double = 60
        /// The query budget (``QueryBudget``).
        var queryBudgetBytes = 1 << 20
        var queryBytesPerSecond = 256 << 10
        /// Sessions bound at once on one connection.
        var sessions = 64

        init() {}

        init(_ configuration: ServerConfiguration) {
            bindTimeout = configuration.syncBindTimeout
            inboundBytes = configuration.syncInboundQueueBytes
            outboundBytes = configuration.syncMaxOutboundBytes
            drainTimeout = configuration.syncDrainTimeout
            queryBudgetBytes = configuration.syncQueryBudgetBytes
            queryBytesPerSecond = configuration.syncQueryBytesPerSecond
            sessions = configuration.syncMaxSessionsPerConnection
        }
    }

    /// Adds the route. A connection that sends no `bind` within `limits.bindTimeout`
    /// seconds gets a `connectionClosed` error and is closed (a bind received in time
    /// counts, however long it then waits for the app). Each connection holds at most
    /// `limits.inboundFrames` frames and `limits.inboundBytes` decoded bytes read but not
    /// handled yet (past that its reader waits), and at most `limits.outboundBytes`
    /// encoded bytes to send (``OutboundFrameQueue``: past that, or when a queued frame
    /// waits longer than `limits.drainTimeout`, it is closed); its queries are paced by
    /// a ``QueryBudget``. A request without `Upgrade: websocket` (a proxy that drops the
    /// upgrade fields) is answered ``UpgradeRequired``.
    ///
    /// A connection's `query` messages are evaluated on `queryWork`, its other frames on
    /// ``BlockingWork``.
    static func add<Context: OpenRealmRequestContext>(to router: some RouterMethods<Context>, auth: AuthService, logger: Logger, metrics: ServerMetrics,
                    limits: Limits = Limits(), queryWork: BoundedExecutor = BoundedExecutor.queryWork(limit: BoundedExecutor.defaultQueryConcurrency, metrics: nil)) {
        router.ws("\(AuthRoutes.appPrefix)/realm-sync", shouldUpgrade: { request, context in
            guard UpgradeRequired.isWebSocketUpgrade(request) else { throw UpgradeRequired() }
            guard let appId = context.parameters.get("appId"), AppRegistry.isValidAppId(appId) else { return .dontUpgrade }
            // Opening an app is store work (a database's round trip): not on this thread.
            do { try await BlockingWork.run { _ = try auth.apps.app(appId) } } catch { return .dontUpgrade }
            return .upgrade([:])
        }) { inbound, outbound, context in
            let appId = context.requestContext.parameters.get("appId")
            // Every line about this connection names its client (behind a trusted proxy,
            // the address X-Forwarded-For gives).
            let log = Self.logger(logger, client: context.requestContext.remoteIP)
            let channel = context.requestContext.channel
            let sending = OutboundFrameQueue(maxBytes: limits.outboundBytes, metrics: metrics)
            sending.onOverflow = { queued, frame in
                metrics.increment("openrealm_slow_connections_closed_total", labels: "{reason=\"queue_full\"}")
                log.info("closing a sync connection that does not read what it is sent", metadata: [
                    "queued": "\(queued)", "frame": "\(frame)", "limit": "\(limits.outboundBytes)"])
            }
            let connection = SyncConnection(auth: auth, apps: auth.apps, appId: appId, logger: log, metrics: metrics,
                                            maxSessions: limits.sessions, output: { sending.push($0) })
            metrics.increment("openrealm_connections_total")
            metrics.adjust("openrealm_connections_open", by: 1)
            defer { metrics.adjust("openrealm_connections_open", by: -1) }
            let bound = Flag()
            let bindTimeout = limits.bindTimeout
            let bindDeadline = Task {
                try? await Task.sleep(nanoseconds: UInt64(bindTimeout * 1e9))
                guard !Task.isCancelled, !bound.isSet else { return }
                log.info("closing a sync connection that did not bind in time", metadata: ["timeout": "\(bindTimeout)"])
                sending.push(.message(.error(WireErrorMessage(
                    session: 0, code: .connectionClosed,
                    message: "connectionClosed: no bind within \(bindTimeout) s of connecting; the server closes idle sync connections",
                    isFatal: true))))
                sending.push(.close)
            }
            defer { bindDeadline.cancel() }
            // Every queued frame must reach the socket within the drain timeout. A peer
            // that does not read makes every write wait (the close frame's too), so the
            // channel itself is closed.
            let drainWatch = Task {
                let timeout = Duration.nanoseconds(Int64(limits.drainTimeout * 1e9))
                while !Task.isCancelled {
                    let deadline = (sending.oldestUnwrittenSince ?? .now) + timeout
                    if deadline <= .now {
                        metrics.increment("openrealm_slow_connections_closed_total", labels: "{reason=\"drain_timeout\"}")
                        log.info("closing a sync connection that did not drain its queue in time", metadata: [
                            "queued": "\(sending.bytes)", "timeout": "\(limits.drainTimeout)"])
                        channel.close(promise: nil)
                        return
                    }
                    try? await Task.sleep(until: deadline, clock: .continuous)
                }
            }
            defer { drainWatch.cancel() }
            let queue = InboundFrameQueue(maxFrames: limits.inboundFrames, maxBytes: limits.inboundBytes, metrics: metrics)
            let handlerDone = Flag()
            // The handler: one frame at a time, in order, off the cooperative pool
            // (integration commits to disk and waits for the app's lock); not while the
            // client has not taken what it was sent, and queries within its budget.
            let handler = Task {
                var budget = QueryBudget(capacity: limits.queryBudgetBytes, bytesPerSecond: limits.queryBytesPerSecond)
                while await sending.waitForRoom(), let item = await queue.next() {
                    if case .message(.query(let query)) = item {
                        let wait = budget.delay(for: QueryBudget.cost(of: query))
                        if wait > .zero {
                            metrics.increment("openrealm_query_budget_waits_total")
                            do { try await Task.sleep(for: wait) } catch { break }
                        }
                    }
                    switch item {
                    case .message(let message):
                        if case .query = message {
                            // Subscription evaluation: bounded, apart from logins and uploads.
                            await queryWork.run { connection.receive(message) }
                        } else {
                            await BlockingWork.run { connection.receive(message) }
                        }
                    case .failure(let error):
                        await BlockingWork.run { connection.fail(error) }
                    }
                    if connection.isClosed { break }
                }
                handlerDone.set()
                queue.finish()
            }
            // On a graceful shutdown (SIGTERM, or the service group's) the WebSocket layer
            // sends the client a close frame at once; a client closes and reconnects (to
            // another process behind a load balancer). One that does not answer the close
            // is cut off after ``shutdownGrace``, so that it cannot hold the server up.
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        // Once the writer stops (the close is written, or the socket failed)
                        // nothing more can be sent: a handler waiting for room is let go.
                        defer { sending.end() }
                        while let entry = await sending.next() {
                            switch entry {
                            case .frame(let frame, let sent):
                                metrics.sent(sent, bytes: frame.count)
                                try await outbound.write(.binary(ByteBuffer(bytes: frame)))
                                sending.written()
                            case .close(let code, let reason):
                                switch code {
                                case 1008:
                                    try? await outbound.close(.policyViolation, reason: reason)
                                case 1011:
                                    log.error("cannot encode a sync message", metadata: ["error": "\(reason ?? "")"])
                                    try? await outbound.close(.unexpectedServerError, reason: "cannot encode a message")
                                default:
                                    try? await outbound.close(.normalClosure, reason: reason)
                                }
                                return
                            }
                        }
                    }
                    // The reader keeps reading while earlier frames are handled, so that the
                    // WebSocket's control frames (the client's pongs, its close) are seen and
                    // a protocol `ping` is answered at once; it waits only when the queue is
                    // full (back-pressure on the client through TCP). Frames are charged by
                    // their decoded size.
                    do {
                        for try await message in inbound.messages(maxSize: WireLimits().maxMessageSize + WireProtocol.headerSize) {
                            switch message {
                            case .binary(let buffer):
                                let frame = Array(buffer.readableBytesView)
                                let (item, decodedBytes) = SyncConnection.decode(frame: frame, metrics: metrics)
                                switch item {
                                case .message(.ping(let ping)):
                                    connection.answerPing(ping)
                                    continue
                                case .message(.bind):
                                    // A bind that arrived in time counts even while it waits
                                    // (a busy app must not make its clients look idle).
                                    bound.set()
                                default:
                                    break
                                }
                                await queue.push(item, bytes: decodedBytes)
                            case .text:
                                await queue.push(.failure(WireErrorMessage(
                                    session: 0, code: .badMessage,
                                    message: "badMessage: text WebSocket messages are not used; send binary frames", isFatal: true)), bytes: 0)
                            }
                            if handlerDone.isSet { break }
                        }
                    } catch {
                        log.debug("sync connection read failed", metadata: ["error": "\(error)"])
                    }
                    // The connection is gone: the frame being handled completes, the frames
                    // still queued are dropped (a client that reconnects sends its query and
                    // uploads again on its new connection; handling them here would only put
                    // work for a dead connection in front of its live one), then the
                    // sessions end.
                    queue.finish(discardingQueued: true)
                    handler.cancel()
                    await handler.value
                    await BlockingWork.run { connection.close() }
                    try await group.waitForAll()
                }
            } onGracefulShutdown: {
                Task {
                    try? await Task.sleep(for: SyncEndpoint.shutdownGrace)
                    channel.close(promise: nil)
                }
            }
        }
    }
}

extension SyncEndpoint {
    /// How long a client may take to answer the close a graceful shutdown sends before its
    /// connection is closed under it.
    static let shutdownGrace: Duration = .seconds(5)

    /// `logger` with the connection's client address as metadata `client`.
    static func logger(_ logger: Logger, client: String?) -> Logger {
        var logger = logger
        logger[metadataKey: "client"] = "\(client ?? "unknown")"
        return logger
    }
}

/// A flag set once, read from other tasks: whether a connection received a bind (set by
/// the reader, read by the bind timeout's task), whether its handler ended.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}
