import Foundation

// Aggregates of a property of a custom type: computed over the persisted values and
// converted back (`results.max(ofProperty: "temperature") as Celsius?`).

extension _CustomPersistable {
    /// The value an aggregate of persisted values stands for; stops when it does not convert.
    static func _orConverted(_ persisted: PersistedType) -> Self {
        guard let value = _orConvert(persisted) else {
            preconditionFailure("Could not convert value '\(persisted)' to type '\(Self.self)'.")
        }
        return value
    }
}

extension Results {
    /// The smallest persisted value of a custom-type property, nil when there are no objects.
    public func min<T: _CustomPersistable>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        (min(ofProperty: property) as T.PersistedType?).map(T._orConverted)
    }

    /// The largest persisted value of a custom-type property, nil when there are no objects.
    public func max<T: _CustomPersistable>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        (max(ofProperty: property) as T.PersistedType?).map(T._orConverted)
    }

    /// The sum of the persisted values of a custom-type property.
    public func sum<T: _CustomPersistable>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        T._orConverted(sum(ofProperty: property) as T.PersistedType)
    }

    /// The mean of the persisted values of a custom-type property, nil when there are no objects.
    public func average<T: _CustomPersistable>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        (average(ofProperty: property) as T.PersistedType?).map(T._orConverted)
    }

    public func min<T: _CustomPersistable>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase, T.PersistedType: MinMaxType {
        min(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }
    public func max<T: _CustomPersistable>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase, T.PersistedType: MinMaxType {
        max(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }
    public func sum<T: _CustomPersistable>(of keyPath: KeyPath<Element, T>) -> T where Element: ObjectBase, T.PersistedType: AddableType {
        sum(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }
    public func average<T: _CustomPersistable>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase, T.PersistedType: AddableType {
        average(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }
}

extension _ObjectCollectionQueries {
    public func min<T: _CustomPersistable>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        _results().min(ofProperty: property)
    }
    public func max<T: _CustomPersistable>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        _results().max(ofProperty: property)
    }
    public func sum<T: _CustomPersistable>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        _results().sum(ofProperty: property)
    }
    public func average<T: _CustomPersistable>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        _results().average(ofProperty: property)
    }
}
