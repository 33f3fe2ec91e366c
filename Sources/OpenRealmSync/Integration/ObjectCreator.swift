import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// The `createObject` path of ``ChangesetApplier``: a download's objects (a bootstrap's
/// many thousands) created or merged into existing ones with as little work per object
/// as the store allows.
///
/// Per class it keeps the plan of the last property list it met — which column each
/// wire property goes to, or that it is skipped — and reuses it while the objects that
/// follow name the same properties in the same order (a server sends every object of a
/// class alike). The primary key is converted once, looked up once, and the values are
/// gathered into buffers kept from object to object for one `orc_obj_create` (or
/// `orc_obj_set_many` for an object the file holds already).
///
/// What it skips is what the applier skips: classes this file lacks or without a
/// primary key, properties it lacks, collections, links to embedded objects (those come
/// as their own instructions) and the primary key among the values.
///
/// A link to an object the file does not hold yet is stored as null and remembered
/// (``pendingLinks``): a download may create the target later (a bootstrap sends
/// objects in an order of its own, so an object often precedes what it links to).
/// ``resolvePendingLinks()`` sets those whose target exists once the download is
/// applied; a later write of the same property in the download forgets the link
/// (``forget(table:key:column:)``), and so does erasing the object.
struct ObjectCreator {
    /// A class and the columns of the last property list met for it.
    private struct Plan {
        let cls: orc_class_info
        var names: [String] = []
        /// Per name, its column, or nil when the value is skipped.
        var columns: [UInt16?] = []

        /// Whether `initial` names the plan's properties, in its order.
        func matches(_ initial: [WirePropertyValue]) -> Bool {
            guard initial.count == names.count else { return false }
            for (v, name) in zip(initial, names) where v.name != name { return false }
            return true
        }
    }

    /// A single link property of one object.
    struct LinkSlot: Hashable {
        let table: UInt32
        let key: UInt64
        let column: UInt16
    }

    private let values: ValueConversion
    private var plans: [String: Plan?] = [:]
    private var cols: [UInt16] = []
    private var vals: [orc_value] = []
    /// Links whose target was missing when their object was created, by property.
    private(set) var pendingLinks: [LinkSlot: WireObjectRef] = [:]
    /// The current object's links to missing targets (column, target).
    private var missing: [(UInt16, WireObjectRef)] = []

    init(_ values: ValueConversion) {
        self.values = values
    }

    /// Creates object `pk` of `className` with the single values among `initial`, or sets
    /// them on the object when it exists. String and binary bytes live in `scratch`
    /// until the caller resets it.
    ///
    /// - Returns: false when the instruction is skipped (unknown class, a class without
    ///   a primary key, a key this store cannot hold) or ORCore refused it.
    mutating func create(_ className: String, _ pk: WirePrimaryKey, _ initial: [WirePropertyValue],
                         _ scratch: ValueScratch) -> Bool {
        guard var plan = plan(className) else { return false }
        let cls = plan.cls
        guard var pkValue = values.orcValue(pk.value, scratch) else { return false }
        if !plan.matches(initial) { plan = replan(className, plan, initial) }
        cols.removeAll(keepingCapacity: true)
        vals.removeAll(keepingCapacity: true)
        var existing: UInt64 = 0
        let exists = orc_obj_find(txn, cls.table, &pkValue, &existing) == ORC_OK
        if !exists {
            cols.append(UInt16(cls.pk_col))
            vals.append(pkValue)
        }
        missing.removeAll(keepingCapacity: true)
        for (v, column) in zip(initial, plan.columns) {
            guard let column else { continue }
            let value: orc_value
            if case .link(let ref) = v.value {
                guard let target = values.classInfo(named: ref.className) else { continue }
                if let targetKey = values.findObject(target.table, ref.primaryKey, scratch) {
                    value = .link(table: target.table, key: targetKey)
                } else {
                    value = .null
                    missing.append((column, ref))
                }
            } else {
                guard let converted = values.orcValue(v.value, scratch) else { continue }
                value = converted
            }
            cols.append(column)
            vals.append(value)
        }
        var key = existing
        if exists {
            guard cols.isEmpty || orc_obj_set_many(txn, cls.table, existing, cols, vals, cols.count) == ORC_OK else { return false }
        } else {
            guard orc_obj_create(txn, cls.table, cols, vals, cols.count, &key) == ORC_OK else { return false }
        }
        if !pendingLinks.isEmpty {
            // This object's values replace links remembered for it earlier in the download.
            for column in cols { pendingLinks[LinkSlot(table: cls.table, key: key, column: column)] = nil }
        }
        for (column, ref) in missing { pendingLinks[LinkSlot(table: cls.table, key: key, column: column)] = ref }
        return true
    }

    /// Forgets the remembered link of one property (a later instruction wrote it), or
    /// every remembered link of an object (`column` nil: it was erased).
    mutating func forget(table: UInt32, key: UInt64, column: UInt16?) {
        guard !pendingLinks.isEmpty else { return }
        if let column {
            pendingLinks[LinkSlot(table: table, key: key, column: column)] = nil
        } else {
            pendingLinks = pendingLinks.filter { !($0.key.table == table && $0.key.key == key) }
        }
    }

    /// Sets the remembered links whose targets exist now; the others stay null.
    ///
    /// - Returns: how many links were set.
    mutating func resolvePendingLinks(_ scratch: ValueScratch) -> Int {
        defer { pendingLinks = [:] }
        var set = 0
        for (slot, ref) in pendingLinks {
            defer { scratch.reset() }
            guard let target = values.classInfo(named: ref.className),
                  let targetKey = values.findObject(target.table, ref.primaryKey, scratch) else { continue }
            var link = orc_value.link(table: target.table, key: targetKey)
            if orc_obj_set(txn, slot.table, slot.key, slot.column, &link) == ORC_OK { set += 1 }
        }
        return set
    }

    private var txn: OpaquePointer { values.txn }

    /// The plan of `className`, nil when its objects are skipped.
    private mutating func plan(_ className: String) -> Plan? {
        if let known = plans[className] { return known }
        var plan: Plan?
        if let cls = values.classInfo(named: className), cls.pk_col >= 0 { plan = Plan(cls: cls) }
        plans[className] = .some(plan)
        return plan
    }

    /// `plan` redone for the property list of `initial`, and kept for the next objects.
    private mutating func replan(_ className: String, _ plan: Plan, _ initial: [WirePropertyValue]) -> Plan {
        var next = Plan(cls: plan.cls)
        next.names = initial.map(\.name)
        next.columns = initial.map { v in
            guard let prop = values.property(plan.cls.table, named: v.name), prop.collection == ORC_COLL_NONE,
                  Int32(prop.col) != plan.cls.pk_col, values.embeddedTarget(prop) == nil else { return nil }
            return prop.col
        }
        plans[className] = .some(next)
        return next
    }
}
