import Foundation
import ORCore

/// Registering a notification block: where it is delivered and on which realm.
///
/// - No queue and no actor: the block belongs to the observed realm's state and runs
///   on its thread — when that realm refreshes, begins a write or commits, and for the
///   main thread's realms and actor-isolated realms also when another thread or
///   process commits (through the main queue or the actor).
/// - A queue or an actor: the block gets a realm of its own, confined to that queue or
///   actor, which advances on its own when the file changes; the collection or object
///   the block receives belongs to it.
enum Observation {
    static func register(_ realm: Realm, queue: DispatchQueue?, actor: (any Actor)?, what: @autoclosure () -> String,
                         make: (Realm) -> NotificationRegistration?) -> NotificationToken {
        precondition(!realm.isFrozen, "Cannot observe \(what()): frozen objects and collections never change.")
        precondition(!realm.isInWriteTransaction, "Cannot register a notification block on \(what()) from within a write transaction.")
        let target: Realm
        if let queue {
            target = Realm(coordinator: realm._coordinator, configuration: realm.configuration, scheduler: .queue(queue))
        } else if let actor {
            target = Realm(coordinator: realm._coordinator, configuration: realm.configuration, scheduler: .actor(actor))
        } else {
            target = realm
        }
        guard let registration = make(target) else {
            preconditionFailure("Cannot observe \(what()) on another queue or actor: it cannot be found there. Observe it on its own thread.")
        }
        registration.version = orc_txn_version(target.txn)
        target.state.addRegistration(registration)
        let token = NotificationToken.forRegistration(registration, in: target.state)
        // The first delivery: now through the scheduler, or at the thread's next refresh or write.
        target.state.listener?.poke()
        return token
    }

    /// Calls an actor-isolated block from a job running on that actor.
    static func onActor<A: Actor, Change>(_ actor: A, _ block: @escaping @Sendable (isolated A, Change) -> Void) -> (Change) -> Void {
        { change in
            let box = UncheckedBox(change)
            actor.assumeIsolated { isolated in block(isolated, box.value) }
        }
    }
}

/// Carries a value the compiler cannot prove sendable across a boundary the code
/// guarantees (a job that runs on the value's own thread, queue or actor).
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The key paths a registration is restricted to (`observe(keyPaths:)`), resolved
/// against the stored schema when first needed (the class may not be stored yet).
final class KeyPathFilter {
    let paths: [String]
    let className: String
    private var resolved: [[KeyPathStep]]?

    /// Nil for no restriction. A key path that does not exist stops with a message
    /// naming it (`observe` does not throw, as in Realm).
    init?(_ paths: [String]?, className: String, realm: Realm) {
        guard let paths, !paths.isEmpty else { return nil }
        self.paths = paths
        self.className = className
        let schema = realm._coordinator.storedSchema(realm.txn)
        if schema[className] != nil { _ = steps(schema) }
    }

    /// The steps of every key path, from the observed class.
    func steps(_ schema: StoredSchema) -> [[KeyPathStep]] {
        if let resolved { return resolved }
        do {
            let steps = try paths.map { path throws(RealmError) in try KeyPathSteps.parse(path, from: className, schema: schema) }
            resolved = steps
            return steps
        } catch {
            preconditionFailure(error.message)
        }
    }

    /// The objects of the observed class modified along the key paths.
    func modified(_ context: ChangeContext) -> Set<UInt64> {
        guard context.schema[className] != nil else { return [] }
        return context.modified(paths: steps(context.schema))
    }
}
