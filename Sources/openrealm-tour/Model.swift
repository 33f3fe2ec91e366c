import RealmSwift

// The model of the Flexible Sync pages the tour follows: a to-do list app's tasks and teams.

/// A task: its name, who it is assigned to, whether it is done, minutes spent, due date.
class Task: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var taskName: String
    @Persisted var assignee: String?
    @Persisted var completed: Bool
    @Persisted var progressMinutes: Int
    @Persisted var dueDate: Date
}

/// A team: its name, its tasks and its members.
class Team: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var teamName: String
    @Persisted var tasks: List<Task>
    @Persisted var members: List<String>
}
