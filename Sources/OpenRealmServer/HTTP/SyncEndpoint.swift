import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import OpenRealmWire

/// The sync WebSocket: `GET /api/client/v2.0/app/<appId>/realm-sync` upgraded to a
/// WebSocket whose binary messages each carry one protocol frame. The protocol logic is
/// ``SyncConnection``; this only moves frames between it and the socket.
enum SyncEndpoint {
    /// Adds the route. A connection that sends no `bind` within `bindTimeout` seconds
    /// gets a `connectionClosed` error and is closed (a bind received in time counts,
    /// however long it then waits for the app). Each connection holds at most
    /// `frameQueue` frames and bytes read but not handled yet; past that its reader
    /// waits.
    static func add(to router: Router<ServerRequestContext>, auth: AuthService, logger: Logger, metrics: ServerMetrics,
                    bindTimeout: Double, frameQueue: (frames: Int, bytes: Int) = (256, 32 << 20)) {
        router.ws("\(AuthRoutes.appPrefix)/realm-sync", shouldUpgrade: { _, context in
            guard let appId = context.parameters.get("appId"), AppRegistry.isValidAppId(appId) else { return .dontUpgrade }
            do { _ = try auth.apps.app(appId) } catch { return .dontUpgrade }
            return .upgrade([:])
        }) { inbound, outbound, context in
            let appId = context.requestContext.parameters.get("appId")
            let (stream, continuation) = AsyncStream<ConnectionOutput>.makeStream()
            let connection = SyncConnection(auth: auth, apps: auth.apps, appId: appId, logger: logger, metrics: metrics,
                                            output: { continuation.yield($0) })
            metrics.increment("openrealm_connections_total")
            metrics.adjust("openrealm_connections_open", by: 1)
            defer { metrics.adjust("openrealm_connections_open", by: -1) }
            let bound = Flag()
            let bindDeadline = Task {
                try? await Task.sleep(nanoseconds: UInt64(bindTimeout * 1e9))
                guard !Task.isCancelled, !bound.isSet else { return }
                logger.info("closing a sync connection that did not bind in time", metadata: ["timeout": "\(bindTimeout)"])
                continuation.yield(.message(.error(WireErrorMessage(
                    session: 0, code: .connectionClosed,
                    message: "connectionClosed: no bind within \(bindTimeout) s of connecting; the server closes idle sync connections",
                    isFatal: true))))
                continuation.yield(.close)
            }
            defer { bindDeadline.cancel() }
            let queue = InboundFrameQueue(maxFrames: frameQueue.frames, maxBytes: frameQueue.bytes)
            let handlerDone = Flag()
            // The handler: one frame at a time, in order, off the cooperative pool
            // (integration commits to disk and waits for the app's lock).
            let handler = Task {
                while let item = await queue.next() {
                    await BlockingWork.run {
                        switch item {
                        case .message(let message): connection.receive(message)
                        case .failure(let error): connection.fail(error)
                        }
                    }
                    if connection.isClosed { break }
                }
                handlerDone.set()
                queue.finish()
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let encoder = WireEncoder()
                    for await output in stream {
                        var output = output
                        if case .encoded(let shared) = output, shared.version != encoder.version { output = .message(shared.message) }
                        switch output {
                        case .message(let message):
                            let frame: [UInt8]
                            do {
                                frame = try encoder.encode(message)
                            } catch {
                                logger.error("cannot encode a sync message", metadata: ["error": "\(error)"])
                                try? await outbound.close(.unexpectedServerError, reason: "cannot encode a message")
                                return
                            }
                            metrics.sent(output, bytes: frame.count)
                            try await outbound.write(.binary(ByteBuffer(bytes: frame)))
                        case .encoded(let encoded):
                            metrics.sent(output, bytes: encoded.frame.count)
                            try await outbound.write(.binary(ByteBuffer(bytes: encoded.frame)))
                        case .close:
                            try? await outbound.close(.normalClosure, reason: nil)
                            return
                        }
                    }
                }
                // The reader keeps reading while earlier frames are handled, so that the
                // WebSocket's control frames (the client's pongs, its close) are seen and
                // a protocol `ping` is answered at once; it waits only when the queue is
                // full (back-pressure on the client through TCP).
                do {
                    for try await message in inbound.messages(maxSize: WireLimits().maxMessageSize + WireProtocol.headerSize) {
                        switch message {
                        case .binary(let buffer):
                            let frame = Array(buffer.readableBytesView)
                            let item = SyncConnection.decode(frame: frame, metrics: metrics)
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
                            await queue.push(item, bytes: frame.count)
                        case .text:
                            await queue.push(.failure(WireErrorMessage(
                                session: 0, code: .badMessage,
                                message: "badMessage: text WebSocket messages are not used; send binary frames", isFatal: true)), bytes: 0)
                        }
                        if handlerDone.isSet { break }
                    }
                } catch {
                    logger.debug("sync connection read failed", metadata: ["error": "\(error)"])
                }
                // The connection is gone: the frame being handled completes, the frames
                // still queued are dropped (a client that reconnects sends its query and
                // uploads again on its new connection; handling them here would only put
                // work for a dead connection in front of its live one), then the
                // sessions end.
                queue.finish(discardingQueued: true)
                await handler.value
                await BlockingWork.run { connection.close() }
                continuation.finish()
                try await group.waitForAll()
            }
        }
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
