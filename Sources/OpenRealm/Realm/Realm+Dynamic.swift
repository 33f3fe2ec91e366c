import Foundation
import ORCore

/// The dynamic API: objects of a class named by a string, read and written by property
/// name (`DynamicObject`), through the schema the file stores rather than model classes.
/// What migrations use, and what code that does not know a file's classes can use.
///
/// ```swift
/// for dog in realm.dynamicObjects("Dog").filter("age > 2") {
///     print(dog.name as? String ?? "", dog["age"] as? Int ?? 0)
/// }
/// try realm.write { realm.dynamicCreate("Dog", value: ["name": "Rex", "age": 3]) }
/// ```
///
/// Properties go by their model classes' names where the process has a model class of
/// that name (a class that maps its properties with `propertiesMapping()` is read by its
/// Swift property names, as its typed objects are), else by the names the file stores.
extension Realm {
    /// The objects of the class `typeName`, as `DynamicObject`s: filter, sort and observe
    /// them as any `Results`.
    ///
    /// Stops when the file has no class of that name.
    public func dynamicObjects(_ typeName: String) -> Results<DynamicObject> {
        _ = _dynamicClass(typeName)
        return Results(core: ResultsCore(realm: self, type: DynamicObject.self, dynamicClassName: typeName, domain: nil,
                                         query: ParsedQuery(predicate: .truePredicate)))
    }

    /// The object of class `typeName` whose primary key is `key`, or nil.
    ///
    /// Stops when the file has no class of that name, when the class has no primary key,
    /// or when `key` cannot be a value of the primary key's type.
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        let entry = _dynamicClass(typeName)
        guard let primaryKey = entry.properties.first(where: \.isPrimaryKey) else {
            preconditionFailure("'\(typeName)' does not have a primary key.")
        }
        guard let found = _dynamicFind(entry, primaryKey, key) else { return nil }
        return DynamicObject(realm: self, entry: entry, key: found, readOnly: false, modelNames: true)
    }

    /// Creates an object of class `typeName` from a dictionary of values by property name,
    /// an array of values in the stored properties' order, or another object, and returns
    /// it. With `.modified` or `.all`, an object with the same primary key is updated with
    /// the given values instead. Inside a write transaction only.
    ///
    /// A value that does not fit its property fails the write transaction (its commit
    /// throws), as `create(_:value:update:)` does.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        requireWrite("create objects")
        let entry = _dynamicClass(typeName)
        let primaryKey = entry.properties.first(where: \.isPrimaryKey)
        if update != .error, primaryKey == nil {
            preconditionFailure("'\(typeName)' does not have a primary key and can not be updated")
        }
        do {
            let naming = DynamicObject(realm: self, entry: entry, key: 0, readOnly: true, modelNames: true)
            let values = try _dynamicValues(value, of: entry, naming: naming)
            if update != .error, let primaryKey, let given = values[naming._dynamicName(of: primaryKey)],
               let existing = _dynamicFind(entry, primaryKey, given) {
                for property in entry.properties where !property.isPrimaryKey {
                    guard let newValue = values[naming._dynamicName(of: property)] else { continue }
                    try DynamicValues.write(newValue, self, entry, existing, property)
                }
                return DynamicObject(realm: self, entry: entry, key: existing, readOnly: false, modelNames: true)
            }
            return try DynamicObject.create(realm: self, entry: entry, value: values, modelNames: true)
        } catch {
            _failWrite(error)
            return DynamicObject()
        }
    }

    /// The stored class `typeName`; stops when the file has none.
    func _dynamicClass(_ typeName: String) -> StoredSchema.ClassEntry {
        guard let entry = _coordinator.storedSchema(txn)[typeName] else {
            preconditionFailure("Object type '\(typeName)' is not managed by the Realm.")
        }
        return entry
    }

    /// The key of the object of `entry` whose primary key (`primaryKey`) is `key`, or nil.
    private func _dynamicFind(_ entry: StoredSchema.ClassEntry, _ primaryKey: StoredSchema.PropertyEntry, _ key: Any?) -> UInt64? {
        defer { if writeTxn == nil { arena.reset() } }
        var value: orc_value
        do { value = try DynamicValues.encode(key, primaryKey, self) } catch {
            preconditionFailure("Invalid value '\(key.map { "\($0)" } ?? "nil")' for the primary key of '\(entry.name)': \((error as? RealmError)?.message ?? "\(error)")")
        }
        var found: UInt64 = 0
        return orc_obj_find(txn, entry.table, &value, &found) == ORC_OK ? found : nil
    }

    /// A dynamic creation's values by property name: a dictionary as it is, an array in
    /// the order of the class's stored properties, another object's values by name.
    private func _dynamicValues(_ value: Any, of entry: StoredSchema.ClassEntry, naming: DynamicObject) throws -> [String: Any] {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let array = value as? [Any] {
            guard array.count <= entry.properties.count else {
                throw RealmError(.invalidValue, "Invalid array input: more values (\(array.count)) than properties (\(entry.properties.count)) of '\(entry.name)'.")
            }
            var values: [String: Any] = [:]
            for (property, element) in zip(entry.properties, array) { values[naming._dynamicName(of: property)] = element }
            return values
        }
        if let object = value as? ObjectBase {
            var values: [String: Any] = [:]
            for property in entry.properties {
                let name = naming._dynamicName(of: property)
                if let given = object[name] { values[name] = given }
            }
            return values
        }
        throw RealmError(.invalidValue, "Invalid value '\(value)' to create a '\(entry.name)': give a dictionary, an array or an object.")
    }
}
