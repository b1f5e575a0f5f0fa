/// Entities lifted out of a document to be put into one, the same or
/// another (the page's clipboard): each one's kind and fields, its place
/// from the clipping's centre, and a stroke's samples. Pasted, they become
/// new entities; positions, z-order and what an eraser erased stay behind.
public struct Clipping: Hashable, Sendable {
    public struct Item: Hashable, Sendable {
        public var kind: EntityKind
        /// Every written field but position, z-order and erasures.
        public var fields: [Field]
        /// Where it sits from the clipping's centre, in document units.
        public var offset: Vector
        public var samples: [StrokeSample]

        public init(kind: EntityKind, fields: [Field], offset: Vector, samples: [StrokeSample] = []) {
            self.kind = kind
            self.fields = fields
            self.offset = offset
            self.samples = samples
        }
    }

    /// Bottom first.
    public var items: [Item]

    /// The most entities one paste creates.
    public static let maximumItems = 2000
    /// The most samples one pasted stroke carries (a long stroke drawn for
    /// minutes has about 20,000).
    public static let maximumSamples = 65_536

    public init(items: [Item]) {
        self.items = items
    }

    /// The fields a clipping never carries: where an entity is, where it
    /// sits in z-order, and the holes an eraser made in other entities.
    static let leftBehind: Set<FieldID> = [.x, .y, .zKey, .erases]
}

extension Editor {
    /// The selection as a clipping, bottom first, centred on the selection's
    /// box; nil when nothing (but erasers) is selected.
    public func clipping() -> Clipping? {
        let ids = document.zOrder.filter { state.selection.contains($0) && !document.isEraser($0) }
        guard let bounds = document.bounds(of: ids) else { return nil }
        let centre = bounds.center
        let items = ids.compactMap { id -> Clipping.Item? in
            guard let kind = document.kind(of: id), let entity = document[id] else { return nil }
            let fields = document.fieldsAsTheyRead(of: id, kind: kind).filter { !Clipping.leftBehind.contains($0.id) }
            var samples: [StrokeSample] = []
            if case .stroke(let stroke) = entity.content { samples = stroke.samples }
            return Clipping.Item(
                kind: kind, fields: fields,
                offset: Vector(dx: entity.transform.x - centre.x, dy: entity.transform.y - centre.y), samples: samples)
        }
        return Clipping(items: items)
    }

    /// Puts a clipping's entities on top as new entities, its centre at a
    /// screen point, in one transaction; they become the selection.
    mutating func paste(_ clipping: Clipping, at point: Point) throws(ModelError) -> [Op] {
        guard point.x.isFinite, point.y.isFinite else { throw .invalidInput("a point must be finite") }
        guard !clipping.items.isEmpty, clipping.items.count <= Clipping.maximumItems else {
            throw .invalidInput("a paste holds 1 to \(Clipping.maximumItems) entities, not \(clipping.items.count)")
        }
        let centre = state.viewport.documentPoint(fromScreen: point)
        var scratch = document
        var pasted: [EntityID] = []
        let ops = try transaction { editor, transaction throws(ModelError) in
            for item in clipping.items {
                guard item.samples.count <= Clipping.maximumSamples else {
                    throw .invalidInput("a pasted stroke holds at most \(Clipping.maximumSamples) samples")
                }
                let applied = transaction.ops.count
                let key = scratch.zPlacementOnTop(jitter: Self.jitter(for: try transaction.nextID))
                let fields = item.fields.filter { !Clipping.leftBehind.contains($0.id) }
                    + [.x(centre.x + item.offset.dx), .y(centre.y + item.offset.dy), .zKey(key)]
                let entity = try transaction.create(copying: item.kind, fields)
                pasted.append(entity)
                try transaction.append(inChunks: item.samples, to: entity, at: 0)
                for op in transaction.ops[applied...] { scratch.apply(op) }
            }
        }
        state.selection = Set(pasted)
        return ops
    }
}
