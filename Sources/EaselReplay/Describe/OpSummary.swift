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
        }
    }
}
