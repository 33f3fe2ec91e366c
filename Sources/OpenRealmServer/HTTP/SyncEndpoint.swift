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
    /// however long it then waits for the app).
    static func add(to router: Router<ServerRequestContext>, auth: AuthService, logger: Logger, metrics: ServerMetrics,
                    bindTimeout: Double) {
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
            let bound = BindFlag()
            // A bind that arrived in time counts even while it waits for the app's lock
            // (a busy app must not make its clients look idle).
            connection.onBindReceived = { bound.set() }
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
                do {
                    for try await message in inbound.messages(maxSize: WireLimits().maxMessageSize + WireProtocol.headerSize) {
                        switch message {
                        case .binary(let buffer):
                            // Integration commits to disk: off the cooperative pool. The
                            // loop waits for each frame, so frames stay in order.
                            let frame = Array(buffer.readableBytesView)
                            await BlockingWork.run { connection.receive(frame: frame) }
                            if connection.hasBound { bound.set() }
                        case .text:
                            connection.fail(WireErrorMessage(session: 0, code: .badMessage,
                                                             message: "badMessage: text WebSocket messages are not used; send binary frames", isFatal: true))
                        }
                        if connection.isClosed { break }
                    }
                } catch {
                    logger.debug("sync connection read failed", metadata: ["error": "\(error)"])
                }
                await BlockingWork.run { connection.close() }
                continuation.finish()
                try await group.waitForAll()
            }
        }
    }
}

/// Whether a connection has bound a session (set by the read loop, read by the bind
/// timeout's task).
private final class BindFlag: @unchecked Sendable {
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
