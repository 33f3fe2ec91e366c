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
        var out: [WireInstruction] = []
        for instruction in downloaded {
            var current: WireInstruction? = instruction
            for c in pending.indices {
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
