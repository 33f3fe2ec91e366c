import Foundation
import ORCore

/// Registering an observer of `SectionedResults` or of one `ResultsSection`.
enum SectionedObservation {
    /// Registers `deliver` (called with the sectioning in the delivering realm, and nil
    /// for the initial delivery or the changes) on the realm of `core`, or on a realm of
    /// `queue` or `actor`. With `section`, only changes to that key's section are delivered.
    static func register<Key: Hashable, Element: RealmCollectionValue>(
        _ core: SectioningCore<Key, Element>, keyPaths: [String]?, section: Key?, queue: DispatchQueue?, actor: (any Actor)?,
        _ deliver: @escaping (SectioningCore<Key, Element>, SectionedChanges?) -> Void) -> NotificationToken {
        let what = section.map { "the section '\($0)' of SectionedResults" } ?? "SectionedResults"
        return Observation.register(core.realm, queue: queue, actor: actor, what: what) { realm in
            guard let rebound = core.rebound(to: realm) else { return nil }
            return SectionedResultsRegistration(rebound, filter: rebound.source.keyPathFilter(keyPaths, in: realm),
                                                section: section, deliver: deliver)
        }
    }
}

/// The registration of a sectioned results observer: the sections it last reported,
/// made again after each change that touched objects and compared with
/// `SectionedDiff`.
///
/// The sections are made again whenever objects changed, not only when the source's
/// objects did: the key block may read anything. Errors reading the changes are not
/// delivered (`SectionedResultsChange` has no error case, as in the Realm Swift SDK);
/// the next change is compared with the sections last reported.
final class SectionedResultsRegistration<Key: Hashable, Element: RealmCollectionValue>: NotificationRegistration {
    private let core: SectioningCore<Key, Element>
    private let filter: KeyPathFilter?
    private let section: Key?
    private let deliver: (SectioningCore<Key, Element>, SectionedChanges?) -> Void
    private var reported = Sections<Key, Element>()

    init(_ core: SectioningCore<Key, Element>, filter: KeyPathFilter?, section: Key?,
         deliver: @escaping (SectioningCore<Key, Element>, SectionedChanges?) -> Void) {
        self.core = core
        self.filter = filter
        self.section = section
        self.deliver = deliver
        super.init(version: 0)
    }

    override func deliverInitial(txn: OpaquePointer) {
        reported = core.sections
        guard isActive else { return }
        deliver(core, nil)
    }

    override func rebase(_ context: ChangeContext) {
        reported = core.sections
    }

    override func deliverWithoutLog(txn: OpaquePointer) {
        deliverChanges(modified: [])
    }

    override func deliverChange(_ context: ChangeContext) {
        guard context.summary.touchesObjects || context.summary.schemaChanged else { return }
        deliverChanges(modified: core.source.modified(context, filter))
    }

    override func deliverError(_ error: RealmError) {}

    private func deliverChanges(modified: Set<UInt64>) {
        let old = reported
        let new = core.sections
        reported = new
        let (oldIDs, newIDs) = core.source.identities(old.elements, new.elements)
        var changes = SectionedDiff.changes(old: (old.keys, old.members.map { $0.map { oldIDs[$0] } }),
                                            new: (new.keys, new.members.map { $0.map { newIDs[$0] } }),
                                            modified: modified)
        if let section {
            changes = changes.restricted(toOld: old.index[section], new: new.index[section])
        }
        guard !changes.isEmpty, isActive else { return }
        deliver(core, changes)
    }
}
