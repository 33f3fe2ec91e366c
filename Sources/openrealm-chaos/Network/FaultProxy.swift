import Foundation
import NIOCore
import NIOPosix
import OpenRealmTestSupport

/// A TCP proxy on loopback between clients and the server that injects faults on a
/// seeded random schedule (``FaultKind``): every 50–400 ms it picks a live connection
/// and a fault. Bytes it forwards keep their order; it never loses or invents bytes
/// inside a connection that stays open (TCP's promise), it only ends connections,
/// cuts their last chunk short, delays and stalls them.
///
/// With several targets (servers serving one database) it is also the balancer in front
/// of them: each new connection goes to the next target in turn, and when that one
/// refuses (a killed server) to the one after, as a load balancer's health check would.
/// It injects faults only after ``startFaults()``; without, it only balances.
///
/// Everything runs on one event loop, so its state needs no lock.
final class FaultProxy: @unchecked Sendable {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var loop: EventLoop { group.next() }
    private let targetPorts: [Int]
    /// The target the next connection tries first.
    private var nextTarget = 0
    private var random: SplitMix64
    private var links: [ObjectIdentifier: ProxyLink] = [:]
    private var faultTask: Scheduled<Void>?
    private var injecting = false
    private var serverChannel: Channel?
    /// Whether ``shutdown()`` ran (from the thread that runs the proxy).
    private var isShutDown = false
    private(set) var faults: [FaultKind: Int] = [:]
    private(set) var connections = 0

    /// The port the proxy listens on (after `start`).
    private(set) var port = 0

    convenience init(targetPort: Int, seed: UInt64) {
        self.init(targetPorts: [targetPort], seed: seed)
    }

    /// A proxy in front of `targetPorts` (at least one).
    init(targetPorts: [Int], seed: UInt64) {
        precondition(!targetPorts.isEmpty, "a proxy needs a target")
        self.targetPorts = targetPorts
        random = SplitMix64(seed: seed)
    }

    /// Listens on a free loopback port.
    func start() throws {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try accept(channel) }
            }
        do {
            let channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
            serverChannel = channel
            port = channel.localAddress?.port ?? 0
        } catch {
            throw ChaosFailure(.network, "The proxy cannot listen on loopback: \(error)")
        }
    }

    /// Starts injecting faults.
    func startFaults() {
        loop.execute { [self] in
            injecting = true
            scheduleFault()
        }
    }

    /// Stops injecting faults and lifts every delay and stall; returns the counts by kind.
    func stopFaults() throws -> [FaultKind: Int] {
        try loop.submit { [self] () -> [FaultKind: Int] in
            injecting = false
            faultTask?.cancel()
            for link in links.values { link.clearFaults() }
            return faults
        }.wait()
    }

    /// The number of connections proxied so far.
    func connectionCount() -> Int { (try? loop.submit { [self] in connections }.wait()) ?? 0 }

    /// Closes everything; later calls do nothing (a second close would wait forever on a
    /// loop that is gone).
    func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        try? serverChannel?.close().wait()
        try? group.syncShutdownGracefully()
    }

    // MARK: On the loop

    private func accept(_ inbound: Channel) throws {
        connections += 1
        let link = ProxyLink(serial: connections, inbound: inbound) { [weak self] link in self?.links[ObjectIdentifier(link)] = nil }
        links[ObjectIdentifier(link)] = link
        try inbound.pipeline.syncOperations.addHandler(RelayHandler(link: link, side: .client))
        let first = nextTarget
        nextTarget = (nextTarget + 1) % targetPorts.count
        connect(link, trying: (0..<targetPorts.count).map { targetPorts[(first + $0) % targetPorts.count] })
    }

    /// Connects `link` to the first of `ports` that accepts; closes it when none does.
    private func connect(_ link: ProxyLink, trying ports: [Int]) {
        guard let port = ports.first else {
            link.close(reset: false)
            return
        }
        ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(RelayHandler(link: link, side: .server)) }
            }
            .connect(host: "127.0.0.1", port: port)
            .whenComplete { [self] result in
                switch result {
                case .success(let outbound): link.connected(outbound)
                case .failure: connect(link, trying: Array(ports.dropFirst()))
                }
            }
    }

    private func scheduleFault() {
        guard injecting else { return }
        let wait = Int64(Int.random(in: 50...400, using: &random))
        faultTask = loop.scheduleTask(in: .milliseconds(wait)) { [self] in
            injectOne()
            scheduleFault()
        }
    }

    private func injectOne() {
        let live = links.values.filter(\.isOpen).sorted { $0.serial < $1.serial }
        guard !live.isEmpty else { return }
        let link = live[Int.random(in: 0..<live.count, using: &random)]
        let kind = FaultKind.allCases[Int.random(in: 0..<FaultKind.allCases.count, using: &random)]
        faults[kind, default: 0] += 1
        switch kind {
        case .drop:
            link.close(reset: false)
        case .reset:
            link.close(reset: true)
        case .delay:
            link.delay(byMilliseconds: Int64(Int.random(in: 20...300, using: &random)),
                       forMilliseconds: Int64(Int.random(in: 1_000...4_000, using: &random)))
        case .stall:
            link.stall(forMilliseconds: Int64(Int.random(in: 500...3_000, using: &random)))
        case .truncate:
            link.truncateNext(toward: Bool.random(using: &random) ? .server : .client, keeping: Double.random(in: 0..<1, using: &random))
        }
    }
}

/// Which end of a proxied connection.
enum ProxySide: Sendable {
    case client, server
}

/// One proxied connection: the client's channel, the server's, and the bytes in
/// flight each way with the time they may leave.
final class ProxyLink: @unchecked Sendable {
    let serial: Int
    private let inbound: Channel
    private var outbound: Channel?
    private var waiting: [ByteBuffer] = []
    private var queues: [ProxySide: [(NIODeadline, ByteBuffer)]] = [.client: [], .server: []]
    private var flushScheduled: [ProxySide: Bool] = [.client: false, .server: false]
    private var delay: TimeAmount = .zero
    private var delayEnds = NIODeadline.distantPast
    private var stalledUntil = NIODeadline.distantPast
    private var truncate: (side: ProxySide, keep: Double)?
    private let onClose: (ProxyLink) -> Void
    private(set) var isOpen = true

    init(serial: Int, inbound: Channel, onClose: @escaping (ProxyLink) -> Void) {
        self.serial = serial
        self.inbound = inbound
        self.onClose = onClose
    }

    private var loop: EventLoop { inbound.eventLoop }

    func connected(_ channel: Channel) {
        guard isOpen else { channel.close(promise: nil); return }
        outbound = channel
        for buffer in waiting { enqueue(buffer, toward: .server) }
        waiting = []
    }

    /// Bytes read from `side`, to go to the other side.
    func received(_ buffer: ByteBuffer, from side: ProxySide) {
        guard isOpen else { return }
        if side == .client && outbound == nil {
            waiting.append(buffer)
            return
        }
        enqueue(buffer, toward: side == .client ? .server : .client)
    }

    private func enqueue(_ buffer: ByteBuffer, toward side: ProxySide) {
        let now = NIODeadline.now()
        var release = now
        if now < delayEnds { release = now + delay }
        if stalledUntil > release { release = stalledUntil }
        if let last = queues[side]!.last?.0, last > release { release = last }
        queues[side]!.append((release, buffer))
        scheduleFlush(toward: side)
    }

    private func scheduleFlush(toward side: ProxySide) {
        guard !flushScheduled[side]!, let first = queues[side]!.first else { return }
        flushScheduled[side] = true
        loop.scheduleTask(deadline: first.0) { [self] in
            flushScheduled[side] = false
            flush(toward: side)
        }
    }

    private func flush(toward side: ProxySide) {
        guard isOpen, let target = side == .server ? outbound : inbound else { return }
        let now = NIODeadline.now()
        var wrote = false
        while let first = queues[side]!.first, first.0 <= now, now >= stalledUntil {
            queues[side]!.removeFirst()
            var buffer = first.1
            if let cut = truncate, cut.side == side {
                let keep = Int(Double(buffer.readableBytes) * cut.keep)
                if keep > 0, let part = buffer.readSlice(length: keep) {
                    target.writeAndFlush(part).whenComplete { [self] _ in close(reset: false) }
                } else {
                    close(reset: false)
                }
                return
            }
            target.write(buffer, promise: nil)
            wrote = true
        }
        if wrote { target.flush() }
        if let first = queues[side]!.first {
            if now < stalledUntil {
                queues[side]![0].0 = max(first.0, stalledUntil)
            }
            scheduleFlush(toward: side)
        }
    }

    func delay(byMilliseconds milliseconds: Int64, forMilliseconds duration: Int64) {
        delay = .milliseconds(milliseconds)
        delayEnds = .now() + .milliseconds(duration)
    }

    func stall(forMilliseconds duration: Int64) {
        stalledUntil = .now() + .milliseconds(duration)
    }

    func truncateNext(toward side: ProxySide, keeping fraction: Double) {
        truncate = (side, fraction)
    }

    /// Lifts delays and stalls (bytes held back leave now, in order); a pending
    /// truncation is dropped.
    func clearFaults() {
        delayEnds = .distantPast
        stalledUntil = .distantPast
        truncate = nil
        for side in [ProxySide.client, .server] {
            for index in queues[side]!.indices { queues[side]![index].0 = .distantPast }
            flush(toward: side)
        }
    }

    /// The end on `side` closed: what it sent before still goes to the other end (when
    /// its release time comes), then the other end is closed too.
    func peerClosed(_ side: ProxySide) {
        guard isOpen else { return }
        let toward: ProxySide = side == .client ? .server : .client
        guard let last = queues[toward]!.last?.0 else { close(reset: false); return }
        loop.scheduleTask(deadline: max(last, stalledUntil) + .milliseconds(5)) { [self] in
            flush(toward: toward)
            close(reset: false)
        }
    }

    /// Ends the connection on both sides, with a TCP RST when `reset`.
    func close(reset: Bool) {
        guard isOpen else { return }
        isOpen = false
        onClose(self)
        for channel in [inbound, outbound].compactMap({ $0 }) {
            if reset, let provider = channel as? SocketOptionProvider {
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
    }
}

/// Hands the bytes a channel reads to its link, and closes the link when it closes.
private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let link: ProxyLink
    let side: ProxySide

    init(link: ProxyLink, side: ProxySide) {
        self.link = link
        self.side = side
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        link.received(unwrapInboundIn(data), from: side)
    }

    func channelInactive(context: ChannelHandlerContext) {
        link.peerClosed(side)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        link.close(reset: false)
    }
}
