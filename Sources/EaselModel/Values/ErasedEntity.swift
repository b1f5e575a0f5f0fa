/// One entity a pixel or blur eraser passed over, and where that entity
/// stood when it did.
///
/// An erasure belongs to what it erased: the hole is the eraser's ink
/// carried into the entity's own frame through `transform`, so it moves,
/// scales and turns with the entity wherever the entity goes later, and an
/// entity that comes under the ink afterwards is untouched. The list lives
/// on the eraser stroke (field `erases`, written only by its author), so one
/// undo of the stroke takes every hole it made away, and a move of the
/// entity concurrent with the erase keeps the hole on the entity on every
/// replica: each renders `current transform × inverse(recorded) × ink`.
public struct ErasedEntity: Hashable, Sendable {
    public var entity: EntityID
    public var transform: Transform

    public init(entity: EntityID, transform: Transform) {
        self.entity = entity
        self.transform = transform
    }

    /// Numbers canonical as the model stores them (-0 as 0).
    var canonical: ErasedEntity {
        ErasedEntity(
            entity: entity,
            transform: Transform(
                x: transform.x.canonical, y: transform.y.canonical, scale: transform.scale.canonical,
                rotation: transform.rotation.canonical))
    }

    /// The transform's numbers as unsigned bit patterns, x, y, scale,
    /// rotation: what orders two lists that share a stamp.
    var bitPatterns: [UInt32] {
        [transform.x.bitPattern, transform.y.bitPattern, transform.scale.bitPattern, transform.rotation.bitPattern]
    }
}

extension Array: RegisterValue where Element == ErasedEntity {
    /// Two lists with one stamp (only a misbehaving peer writes them) settle
    /// by length, then entity by entity: ID, then the transform's bits.
    public static func settles(_ candidate: [ErasedEntity], over current: [ErasedEntity]) -> Bool {
        if candidate.count != current.count { return candidate.count > current.count }
        for (new, old) in zip(candidate, current) where new != old {
            if new.entity != old.entity { return new.entity > old.entity }
            return old.bitPatterns.lexicographicallyPrecedes(new.bitPatterns)
        }
        return false
    }
}
