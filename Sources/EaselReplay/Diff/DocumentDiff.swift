import EaselModel

/// How two documents differ, entity by entity and field by field.
public struct EntityDifference: Hashable, Sendable, CustomStringConvertible {
    public struct Field: Hashable, Sendable {
        public var name: String
        /// Nil when that side has no such entity or field.
        public var left: String?
        public var right: String?

        public init(name: String, left: String?, right: String?) {
            self.name = name
            self.left = left
            self.right = right
        }
    }

    public var id: EntityID
    public var fields: [Field]

    public init(id: EntityID, fields: [Field]) {
        self.id = id
        self.fields = fields
    }

    public var description: String {
        "\(id): "
            + fields.map { "\($0.name) \($0.left ?? "(none)") ≠ \($0.right ?? "(none)")" }.joined(separator: ", ")
    }
}

extension Document {
    /// The entities whose fields differ between this document and `other`,
    /// ordered by ID. Empty when their state hashes agree.
    public func differences(from other: Document) -> [EntityDifference] {
        let ids = Set(knownEntities.filter { kind(of: $0) != nil })
            .union(other.knownEntities.filter { other.kind(of: $0) != nil })
        return ids.sorted().compactMap { id in
            let left = EntityFields(id, in: self)
            let right = EntityFields(id, in: other)
            guard let left, let right else {
                return EntityDifference(
                    id: id,
                    fields: [
                        .init(name: "entity", left: left.map { _ in "present" }, right: right.map { _ in "present" })
                    ]
                )
            }
            var fields: [EntityDifference.Field] = []
            let names = left.values.map(\.name) + right.values.map(\.name).filter { left[$0] == nil }
            for name in names where left[name] != right[name] {
                fields.append(.init(name: name, left: left[name], right: right[name]))
            }
            if fields.isEmpty, let index = firstDifferentSample(of: id, from: other) {
                fields.append(
                    .init(name: "sample \(index)", left: sample(index, of: id), right: other.sample(index, of: id)))
            }
            return fields.isEmpty ? nil : EntityDifference(id: id, fields: fields)
        }
    }

    private func samples(of id: EntityID) -> [StrokeSample] {
        if case .stroke(let stroke) = self[id]?.content { stroke.samples } else { [] }
    }

    private func firstDifferentSample(of id: EntityID, from other: Document) -> Int? {
        let mine = samples(of: id)
        let theirs = other.samples(of: id)
        return zip(mine, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    }

    private func sample(_ index: Int, of id: EntityID) -> String? {
        let all = samples(of: id)
        guard index < all.count else { return nil }
        let sample = all[index]
        return "(\(sample.x), \(sample.y), t \(sample.time)" + (sample.force.map { ", force \($0))" } ?? ")")
    }
}
