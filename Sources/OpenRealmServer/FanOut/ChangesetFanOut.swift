import Foundation
import OpenRealmWire

/// What the other sessions of an app receive of one integrated changeset, worked out
/// once per distinct outcome rather than once per session.
///
/// For each session and each object the changeset touches, two facts decide what the
/// session gets: whether its client held the object before (``ServerSession/viewObjects``)
/// and whether the object is in its view now (its subscription query for the class
/// intersected with its user's read rule, or its partition). Instructions on an object
/// that stays in the view are forwarded as they are; an object that enters it is sent
/// whole (``ObjectSnapshot``); one that leaves it is erased; the rest is left out.
/// Schema instructions are not forwarded (each client declares its own schema).
///
/// Sessions are grouped by those decisions, so that:
/// - a view query runs once per distinct predicate and object, not once per session
///   (``ViewMembership``; a thousand sessions with the same subscription and no
///   per-user rule share one run; sessions whose read rules differ each get their own
///   predicate and run);
/// - an object entering many views is read from the store once;
/// - the download a group receives is encoded once per distinct set of per-session
///   header fields (session number, query version, acknowledged client version), and
///   the same bytes are handed to every connection of the group (``EncodedMessage``).
///
/// Call ``init(_:to:objects:membership:)`` in the write transaction that integrated the
/// changeset (with the app's lock held), ``applyViews()`` before the next changeset of the same
/// transaction is integrated, then ``send(serverVersion:originFileIdent:originClientVersion:timestamp:)``
/// after the transaction committed, still under the lock, so every session sees
/// changes in server version order. A version another engine committed is fanned out
/// the same way during catch-up (``SyncApp/catchUp()``), from its post-images
/// (``PostImages``, ``RecordedMembership``) instead of the live objects.
struct ChangesetFanOut {
    /// What one object of the changeset does to one session.
    private enum Decision: UInt8 {
        /// In the view before and after: forward its instructions.
        case forward
        /// Entered the view: send it whole.
        case enter
        /// Left the view: erase it.
        case leave
        /// Outside the view before and after: nothing.
        case none
    }

    /// One session, its group, and the client version of its file integrated when
    /// the changeset was (the download's acknowledgement: in a group commit, later
    /// changesets of the group may acknowledge more).
    private struct Delivery {
        let session: ServerSession
        let group: Int
        let clientVersion: UInt64
    }

    /// The header fields of a download that differ between sessions; with the group,
    /// they decide its bytes.
    private struct FrameKey: Hashable {
        let group: Int
        let session: UInt64
        let queryVersion: UInt64
        let lastIntegratedClientVersion: UInt64
    }

    private var deliveries: [Delivery] = []
    /// Per group, the instructions its sessions receive.
    private(set) var groups: [[WireInstruction]] = []
    /// Per group, the objects that enter and leave its sessions' views (applied to each
    /// session's ``ServerSession/viewObjects`` in place, so a large view is not copied).
    private var entering: [[WireObjectRef]] = []
    private var leaving: [[WireObjectRef]] = []

    /// Works out what each of `others` receives of `applied` (the changeset as the
    /// server integrated it): whether each object is in each session's view now by
    /// `membership`, the objects that enter views read from `objects`.
    ///
    /// - Throws: the store's errors (reading an object, running a view query).
    init(_ applied: [WireInstruction], to others: [ServerSession], objects: some ObjectImageReading,
         membership: some ViewMembership) throws {
        // No one else to tell (an app with one session, a bulk upload): no work at all.
        guard !others.isEmpty else { return }
        // The objects in order of first appearance (``objects(of:)``), and each instruction's object.
        var refs: [WireObjectRef] = []
        var refIndex: [WireObjectRef: Int] = [:]
        let owners: [Int?] = applied.map { instruction in
            guard let ref = instruction.topLevelObject else { return nil }
            if let i = refIndex[ref] { return i }
            refIndex[ref] = refs.count
            refs.append(ref)
            return refs.count - 1
        }
        guard !refs.isEmpty else {
            // Schema only: nothing reaches anyone, views stay as they are.
            deliveries = others.map { Delivery(session: $0, group: 0, clientVersion: $0.lastIntegratedClientVersion) }
            groups = [[]]
            entering = [[]]
            leaving = [[]]
            return
        }
        var snapshots: [Int: [WireInstruction]] = [:]
        var groupOf: [[Decision]: Int] = [:]

        func snapshot(_ i: Int) throws -> [WireInstruction] {
            if let known = snapshots[i] { return known }
            guard let image = try objects.images([refs[i]]).first else { return [] }
            let instructions = ObjectSnapshot.instructions(image)
            snapshots[i] = instructions
            return instructions
        }

        deliveries.reserveCapacity(others.count)
        for other in others {
            var decisions: [Decision] = []
            decisions.reserveCapacity(refs.count)
            for ref in refs {
                let before = other.viewObjects.contains(ref)
                let now = try membership.isInView(other.view, ref)
                switch (before, now) {
                case (true, true): decisions.append(.forward)
                case (false, true): decisions.append(.enter)
                case (true, false): decisions.append(.leave)
                case (false, false): decisions.append(.none)
                }
            }
            let group: Int
            if let known = groupOf[decisions] {
                group = known
            } else {
                group = groups.count
                groupOf[decisions] = group
                var out: [WireInstruction] = []
                var started = Array(repeating: false, count: refs.count)
                for (instruction, owner) in zip(applied, owners) {
                    guard let i = owner else { continue }
                    let first = !started[i]
                    started[i] = true
                    switch decisions[i] {
                    case .forward: out.append(instruction)
                    case .enter where first: out += try snapshot(i)
                    case .leave where first: out.append(.eraseObject(WireObjectPath(refs[i])))
                    default: break
                    }
                }
                groups.append(out)
                entering.append(zip(refs, decisions).compactMap { $1 == .enter ? $0 : nil })
                leaving.append(zip(refs, decisions).compactMap { $1 == .leave ? $0 : nil })
            }
            deliveries.append(Delivery(session: other, group: group, clientVersion: other.lastIntegratedClientVersion))
        }
    }

    /// The top-level objects `applied` acts on, in order of first appearance: the objects
    /// whose membership a fan-out of it decides (and whose post-images a shared store
    /// keeps, ``PostImages``).
    static func objects(of applied: [WireInstruction]) -> [WireObjectRef] {
        var refs: [WireObjectRef] = []
        var seen: Set<WireObjectRef> = []
        for instruction in applied {
            if let ref = instruction.topLevelObject, seen.insert(ref).inserted { refs.append(ref) }
        }
        return refs
    }

    /// The instructions `session` receives (tests), or nil when it is not among the
    /// sessions the changeset was fanned out to.
    func instructions(for session: ServerSession) -> [WireInstruction]? {
        deliveries.first { $0.session === session }.map { groups[$0.group] }
    }

    /// Updates each session's view (``ServerSession/viewObjects``) to what it holds once
    /// it has the changeset.
    func applyViews() {
        for delivery in deliveries {
            for ref in entering[delivery.group] { delivery.session.enterView(ref) }
            for ref in leaving[delivery.group] { delivery.session.leaveView(ref) }
        }
    }

    /// Sends the download of the changeset of server version `serverVersion` to every
    /// session that receives something (views already updated by ``applyViews()``).
    /// Sessions with the same instructions and header fields get the same encoded bytes,
    /// stamped with `committedAt`, when the changeset was committed.
    func send(serverVersion: UInt64, originFileIdent: UInt64, originClientVersion: UInt64, timestamp: WireHybridTimestamp,
              committedAt: ContinuousClock.Instant? = nil) {
        var frames: [FrameKey: EncodedMessage] = [:]
        let encoder = WireEncoder()
        for delivery in deliveries {
            let session = delivery.session
            let instructions = groups[delivery.group]
            guard !instructions.isEmpty else { continue }
            let key = FrameKey(group: delivery.group, session: session.number, queryVersion: session.view.queryVersion,
                               lastIntegratedClientVersion: delivery.clientVersion)
            if let frame = frames[key] {
                session.output(.encoded(frame))
                continue
            }
            let message = session.download([WireDownloadChangeset(
                serverVersion: serverVersion, lastIntegratedClientVersion: delivery.clientVersion,
                originFileIdent: originFileIdent, originClientVersion: originClientVersion,
                timestamp: timestamp, instructions: instructions)], serverVersion: serverVersion,
                acknowledging: delivery.clientVersion)
            // A message that does not encode goes out as a message: the transport
            // reports it and closes that connection, as for any other.
            guard let frame = try? EncodedMessage(message, encoder: encoder, committedAt: committedAt) else {
                session.send(message)
                continue
            }
            frames[key] = frame
            session.output(.encoded(frame))
        }
    }
}
