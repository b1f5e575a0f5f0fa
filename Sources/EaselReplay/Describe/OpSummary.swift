import EaselModel

extension Op {
    /// The op on one line: what it does and to which entity, e.g.
    /// `set e3@00000000000000c1 x=105.5`.
    public var summary: String {
        switch action {
        case .create(let kind, let fields):
            let shown = fields.filter { $0.id != .zKey }.map { "\($0.id)=\(FieldText.brief($0))" }
            return (["create \(kind) \(EntityID(id))"] + shown).joined(separator: " ")
        case .set(let entity, let field):
            return "set \(entity) \(field.id)=\(FieldText.brief(field))"
        case .delete(let entity):
            return "delete \(entity)"
        case .restore(let entity):
            return "restore \(entity)"
        case .append(let entity, let start, let samples):
            return "append \(entity) samples \(start)..<\(UInt64(start) + UInt64(samples.count))"
        case .insertText(let entity, let insertion):
            var typed = String.UnicodeScalarView()
            typed.append(contentsOf: insertion.scalars)
            let after = insertion.originLeft.map { "after \($0)" } ?? "at the start"
            let before = insertion.originRight.map { "before \($0)" } ?? "at the end"
            return "type \(String(typed).debugDescription) into \(entity) \(after), \(before)"
        case .deleteText(let entity, let runs):
            let count = runs.reduce(0) { $0 + $1.count }
            let named = runs.prefix(4).map { $0.count == 1 ? "\($0.first)" : "\($0.first)+\($0.count)" }
            return "delete \(count) character\(count == 1 ? "" : "s") of \(entity): "
                + named.joined(separator: ", ") + (runs.count > 4 ? ", …" : "")
        case .textSnapshot(let entity, let snapshot):
            let total = snapshot.runs.reduce(0) { $0 + $1.count }
            var reads = String.UnicodeScalarView()
            reads.append(contentsOf: snapshot.scalars.prefix(40))
            return "snapshot of \(entity)'s characters: \(snapshot.runs.count) runs, \(total) characters, "
                + "\(total - snapshot.scalars.count) deleted, reading \(String(reads).debugDescription)"
                + (snapshot.scalars.count > 40 ? "…" : "")
        }
    }
}
