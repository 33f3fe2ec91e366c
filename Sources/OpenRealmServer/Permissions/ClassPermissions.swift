/// The read and write rules of one class, in RQL, from the app configuration's `rules`.
///
/// ```json
/// "rules": { "Task": { "read": "owner == %user.id OR shared == true", "write": "owner == %user.id" } }
/// ```
///
/// `%user.id` and `%user.email` stand for the bound user's id and email (`""` for users
/// without one). A missing rule allows everything; a class without an entry has no
/// restriction. A rule may use only the class's own fields (no link paths, backlinks or
/// SUBQUERY), no aggregates but `@count`, and no arguments.
public struct ClassPermissions: Sendable, Hashable {
    /// Which objects of the class a user may read (receive); nil: all of them.
    public var read: String?
    /// Which objects of the class a user may create, change or erase; nil: all of them.
    public var write: String?

    /// Rules `read` and `write` (nil: no restriction).
    public init(read: String? = nil, write: String? = nil) {
        self.read = read
        self.write = write
    }
}
