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
        // so a pending changeset none of whose instructions starts at the downloaded
        // one's owner is left alone, as is a downloaded instruction without a path.
        // Transforms never change an owner, so the sets stay valid as `pending` changes.
        // Without this every downloaded instruction met every pending one: with a few
        // hundred unacknowledged changesets a download kept the session busy for minutes.
        let owners = pending.map { Set($0.compactMap { $0.objectPath?.root }) }
        var out: [WireInstruction] = []
        for instruction in downloaded {
            guard let owner = instruction.objectPath?.root else {
                out.append(instruction)
                continue
            }
            var current: WireInstruction? = instruction
            for c in pending.indices where owners[c].contains(owner) {
                guard current != nil else { break }
                var rewritten: [WireInstruction] = []
                for p in pending[c] {
                    guard let d = current else { rewritten.append(p); continue }
                    current = transform(d, against: p, winsTies: true)
                    if let p2 = transform(p, against: d, winsTies: false) { rewritten.append(p2) }
                }
                pending[c] = rewritten
            }
            if let current { out.append(current) }
        }
        return out
    }
}
