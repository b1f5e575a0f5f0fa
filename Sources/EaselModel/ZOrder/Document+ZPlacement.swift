/// Where a new entity goes in the z-order, and the neighbours that must be
/// re-keyed first because they shared a key.
public struct ZPlacement: Hashable, Sendable {
    public struct Rekey: Hashable, Sendable {
        public var entity: EntityID
        public var key: ZKey
    }

    /// The new entity's key.
    public var key: ZKey
    /// Ordinary z-key sets to write alongside, bottom first.
    public var rekeys: [Rekey]
}

extension Document {
    /// A key that puts a new entity just above `lower` among the visible
    /// entities (nil: at the bottom).
    ///
    /// Keys are generated between the (key, id) neighbours. Neighbours that
    /// share a key — concurrent inserts that picked the same one — have no
    /// key between them; then the run of entities sharing the upper
    /// neighbour's key is spread out with ordinary sets, in their current
    /// order, and the new key goes below them. O(n).
    ///
    /// Inserting into one gap again and again lengthens keys; when a key
    /// would pass `ModelLimits.zKeyBytes`, every visible entity above the
    /// insertion point is re-keyed with short keys instead (O(n) sets, and
    /// only after hundreds of inserts into the same gap).
    public func zPlacement(above lower: EntityID?, jitter: UInt64) throws(ModelError) -> ZPlacement {
        let placement = try tightPlacement(above: lower, jitter: jitter)
        let longest = ([placement.key] + placement.rekeys.map({ $0.key })).map({ $0.string.utf8.count }).max() ?? 0
        guard longest > ModelLimits.zKeyBytes else { return placement }
        return try spreadPlacement(above: lower, jitter: jitter)
    }

    private func tightPlacement(above lower: EntityID?, jitter: UInt64) throws(ModelError) -> ZPlacement {
        let (visible, upperIndex) = try insertionPoint(above: lower)
        let lowerKey = upperIndex > 0 ? visible[upperIndex - 1].zKey.value : nil
        let upperKey = upperIndex < visible.count ? visible[upperIndex].zKey.value : nil
        guard let sharedKey = lowerKey, sharedKey == upperKey else {
            return ZPlacement(key: try ZKey.between(lowerKey, upperKey, jitter: jitter), rekeys: [])
        }
        let run = visible[upperIndex...].prefix { $0.zKey.value == sharedKey }
        let bound = visible[(upperIndex + run.count)...].first?.zKey.value
        var seeds = SplitMix64(seed: jitter)
        var rekeys: [ZPlacement.Rekey] = []
        var previous = sharedKey
        for record in run {
            let key = try ZKey.between(previous, bound, jitter: seeds.next())
            rekeys.append(.init(entity: record.id, key: key))
            previous = key
        }
        return ZPlacement(key: try ZKey.between(sharedKey, rekeys[0].key, jitter: seeds.next()), rekeys: rekeys)
    }

    /// Re-keys every visible entity above `lower` with keys that step the
    /// integer part, which stay short, and puts the new key below them.
    private func spreadPlacement(above lower: EntityID?, jitter: UInt64) throws(ModelError) -> ZPlacement {
        let (visible, upperIndex) = try insertionPoint(above: lower)
        let lowerKey = upperIndex > 0 ? visible[upperIndex - 1].zKey.value : nil
        var seeds = SplitMix64(seed: jitter)
        var rekeys: [ZPlacement.Rekey] = []
        var previous = lowerKey
        // One key for the new entity, then one for each entity above it.
        var keys: [ZKey] = []
        for _ in 0...(visible.count - upperIndex) {
            let key = try ZKey.between(previous, nil, jitter: seeds.next())
            keys.append(key)
            previous = key
        }
        for (record, key) in zip(visible[upperIndex...], keys.dropFirst()) {
            rekeys.append(.init(entity: record.id, key: key))
        }
        return ZPlacement(key: keys[0], rekeys: rekeys)
    }

    /// The visible records bottom first, and the index of the first one
    /// above `lower` (0 for nil: the bottom).
    private func insertionPoint(above lower: EntityID?) throws(ModelError) -> (visible: [EntityRecord], upperIndex: Int)
    {
        let visible = zOrderedSlots.filter { records[Int($0)].isVisible }.map { records[Int($0)] }
        guard let lower else { return (visible, 0) }
        guard let lowerIndex = visible.firstIndex(where: { $0.id == lower }) else { throw .unknownEntity(lower) }
        return (visible, lowerIndex + 1)
    }

    /// A key above every visible entity.
    public func zPlacementOnTop(jitter: UInt64) -> ZKey {
        let top = zOrderedSlots.last { records[Int($0)].isVisible }.map { records[Int($0)].zKey.value }
        // Nothing sits above the top entity, so there is always room.
        return (try? ZKey.between(top, nil, jitter: jitter)) ?? ZKey.first
    }
}
