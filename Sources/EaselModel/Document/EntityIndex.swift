/// Finds an entity's record slot: the lookup every applied op makes.
///
/// Open addressing with linear probing over two flat arrays, at most half
/// full. Records are never removed, so neither are entries. A dictionary
/// would hash every lookup with SipHash, which dominated merging; this
/// mixes the ID with a multiply-xorshift keyed by a per-process random
/// seed, so entity IDs chosen to collide still cannot be predicted.
///
/// Lookup and insertion are O(1) expected; growth doubles and rehashes.
struct EntityIndex: Sendable {
    /// -1 marks an empty bucket.
    private var slots: ContiguousArray<Int32> = ContiguousArray(repeating: -1, count: 16)
    private var keys: ContiguousArray<EntityID> = ContiguousArray(
        repeating: EntityID(.unwritten), count: 16)
    private(set) var count = 0

    private static let seed = UInt64.random(in: 0...UInt64.max)

    subscript(entity: EntityID) -> Int32? {
        let mask = slots.count - 1
        var bucket = Self.bucket(of: entity, mask: mask)
        while true {
            let slot = slots[bucket]
            if slot < 0 { return nil }
            if keys[bucket] == entity { return slot }
            bucket = (bucket + 1) & mask
        }
    }

    /// Adds an entity that is not in the index yet.
    mutating func insert(_ entity: EntityID, slot: Int32) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var bucket = Self.bucket(of: entity, mask: mask)
        while slots[bucket] >= 0 { bucket = (bucket + 1) & mask }
        slots[bucket] = slot
        keys[bucket] = entity
        count += 1
    }

    private mutating func grow() {
        let oldSlots = slots
        let oldKeys = keys
        slots = ContiguousArray(repeating: -1, count: oldSlots.count * 2)
        keys = ContiguousArray(repeating: EntityID(.unwritten), count: oldSlots.count * 2)
        count = 0
        for bucket in oldSlots.indices where oldSlots[bucket] >= 0 {
            insert(oldKeys[bucket], slot: oldSlots[bucket])
        }
    }

    @inline(__always)
    private static func bucket(of entity: EntityID, mask: Int) -> Int {
        var mixed = (entity.creation.counter ^ seed) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= entity.creation.replica.rawValue &* 0xC2B2_AE3D_27D4_EB4F
        mixed ^= mixed >> 29
        mixed &*= 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 32
        return Int(truncatingIfNeeded: mixed) & mask
    }
}
