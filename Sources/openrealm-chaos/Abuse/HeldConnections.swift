import Foundation

extension Attack {
    /// The loop of an attack that holds connections open against the server: up to
    /// `concurrent` at once and `limit` in all, each one that ends replaced while the run
    /// lasts. Every half second `ended` is asked of each open one (it tallies how the
    /// server ended it and closes it, or returns false while it is open); the ones still
    /// open when the run stops are tallied `open at the end` and closed with `close`.
    func holdOpen<Held>(concurrent: Int, limit: Int, against target: AbuseTarget,
                        open: () -> Held?, ended: (Held) -> Bool, close: (Held) -> Void) {
        var held: [Held] = []
        var opened = 0
        while target.isRunning {
            while held.count < concurrent && opened < limit && target.isRunning {
                opened += 1
                if let connection = open() { held.append(connection) }
            }
            target.pause(0.5)
            held.removeAll(where: ended)
            if held.isEmpty && opened >= limit { break }
        }
        for connection in held {
            target.tally.count(name, "open at the end")
            close(connection)
        }
    }
}
