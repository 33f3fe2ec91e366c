import OpenRealmWire

/// The client's half of list convergence (`docs/PROTOCOL.md` §6.6): a downloaded
/// changeset was integrated by the server before every local changeset it had not yet
/// integrated, so the client transforms it against those (the downloaded one counts as
/// integrated first) and them against it, the mirror image of what the server does to
/// an upload.
extension ListTransform {
    /// Whether any of `instructions` edits a list (so that transforming against it can
    /// change anything).
    public static func editsLists(_ instructions: [WireInstruction]) -> Bool {
        instructions.contains { list(of: $0) != nil }
    }

    /// `downloaded` rewritten to apply after the client's `pending` changesets (oldest
    /// first, each as the client holds it: already transformed past earlier downloads),
    /// and `pending` rewritten in place to apply after `downloaded`. Instructions that
    /// lost their element are left out of either side.
    public static func integrateDownload(_ downloaded: [WireInstruction],
                                         pending: inout [[WireInstruction]]) -> [WireInstruction] {
        guard editsLists(downloaded) || pending.contains(where: editsLists) else { return downloaded }
        // Two instructions can only move each other when their object paths start at the
        // same top-level object (a list and every path through it belong to one owner),
        // so a downloaded instruction meets only the pending changesets that still have
        // an instruction on its owner, and one without a path meets none. Transforms
        // never change an owner, but they drop instructions: a changeset left with none
        // on an owner (its list edits lost to a downloaded clear, say) leaves that
        // owner's list. Without this every downloaded instruction met every pending
        // changeset: an object sent whole (a clear, then an insert per element) against
        // thousands of unacknowledged changesets kept the session busy for minutes.
        var byOwner: [WireObjectRef: [Int]] = [:]
        for (c, changeset) in pending.enumerated() {
            for owner in Set(changeset.compactMap({ $0.objectPath?.root })) { byOwner[owner, default: []].append(c) }
        }
        var out: [WireInstruction] = []
        for instruction in downloaded {
            guard let owner = instruction.objectPath?.root, let meeting = byOwner[owner], !meeting.isEmpty else {
                out.append(instruction)
                continue
            }
            var current: WireInstruction? = instruction
            var stillOn: [Int] = []
            stillOn.reserveCapacity(meeting.count)
            for c in meeting {
                guard current != nil else {
                    stillOn.append(c)
                    continue
                }
                var rewritten: [WireInstruction] = []
                for p in pending[c] {
                    guard let d = current else { rewritten.append(p); continue }
                    current = transform(d, against: p, winsTies: true)
                    if let p2 = transform(p, against: d, winsTies: false) { rewritten.append(p2) }
                }
                pending[c] = rewritten
                if rewritten.contains(where: { $0.objectPath?.root == owner }) { stillOn.append(c) }
            }
            byOwner[owner] = stillOn
            if let current { out.append(current) }
        }
        return out
    }
}
