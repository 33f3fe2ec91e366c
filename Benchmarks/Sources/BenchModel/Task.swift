import Foundation
import OpenRealm

/// The seeds' `Task` model, as an OpenRealm user declares it.
public final class Task: Object {
    @Persisted(primaryKey: true) public var _id: ObjectId
    @Persisted public var taskName: String
    @Persisted(indexed: true) public var assignee: String?
    @Persisted public var completed: Bool
    @Persisted public var progressMinutes: Int
    @Persisted public var dueDate: Date
}
