import Foundation
import OpenRealmQuery
import OpenRealmWire

/// A completed view as `__client_files.view` keeps it (JSON): the subscription
/// queries (rendered RQL per class), the partition, and the user's read rules as they
/// were bound, so that a later session of the same client file can tell what the client
/// holds.
struct ViewRecord: Codable, Sendable, Hashable {
    var queryVersion: UInt64
    var queries: [String: String]
    var partition: String?
    var read: [String: String]

    init(_ view: SubscriptionView) throws {
        queryVersion = view.queryVersion
        queries = view.queries.mapValues { QueryRenderer.render($0) }
        partition = view.partition.map { "\($0.field)=\($0.value)" }
        read = view.permissions.readRulesByClass.mapValues { QueryRenderer.render($0) }
    }

    init?(decoding text: String) {
        guard let record = try? JSONDecoder().decode(ViewRecord.self, from: Data(text.utf8)) else { return nil }
        self = record
    }

    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The recorded view with `current`'s rules and partition, or nil when those
    /// changed since (the client's holdings are then unknown).
    func view(like current: SubscriptionView) -> SubscriptionView? {
        guard partition == current.partition.map({ "\($0.field)=\($0.value)" }),
              read == current.permissions.readRulesByClass.mapValues({ QueryRenderer.render($0) }) else { return nil }
        var view = current
        view.queryVersion = queryVersion
        view.queries = [:]
        for (cls, rql) in queries {
            guard let parsed = try? QueryParser.parse(rql).normalized() else { return nil }
            view.queries[cls] = parsed
        }
        return view
    }
}
