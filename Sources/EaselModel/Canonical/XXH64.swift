/// XXH64 (Yann Collet's xxHash, 64-bit variant) with seed 0: a named,
/// seedless, platform-independent hash. Swift's `Hasher` is seeded per
/// process, so it can never name a state across machines.
public enum XXH64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    public static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBufferPointer { hash($0, seed: seed) }
    }

    public static func hash(_ input: UnsafeBufferPointer<UInt8>, seed: UInt64 = 0) -> UInt64 {
        let length = input.count
        var offset = 0
        var hash: UInt64
        if length >= 32 {
            var lanes = startingLanes(seed)
            while offset + 32 <= length {
                stripe(&lanes, input, at: offset)
                offset += 32
            }
            hash = merged(lanes)
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(length)
        return finishTail(input, from: offset, into: hash)
    }

    /// The bytes after the last whole stripe, and the final avalanche.
    private static func finishTail(_ input: UnsafeBufferPointer<UInt8>, from start: Int, into seeded: UInt64) -> UInt64 {
        var hash = seeded
        var offset = start
        let length = input.count
        while offset + 8 <= length {
            hash ^= round(0, read64(input, offset))
            hash = rotate(hash, 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= length {
            hash ^= UInt64(read32(input, offset)) &* prime1
            hash = rotate(hash, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < length {
            hash ^= UInt64(input[offset]) &* prime5
            hash = rotate(hash, 11) &* prime1
            offset += 1
        }
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }

    /// XXH64 of bytes given in pieces: the same hash as `hash(_:)` of the
    /// pieces joined, without ever holding them joined.
    public struct Streaming {
        private var lanes: Lanes
        private let seed: UInt64
        /// Up to 31 bytes not yet a whole stripe of 32.
        private var pending: [UInt8] = []
        private var length = 0

        public init(seed: UInt64 = 0) {
            self.seed = seed
            lanes = startingLanes(seed)
            pending.reserveCapacity(32)
        }

        public mutating func add(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { add($0) }
        }

        public mutating func add(_ input: UnsafeBufferPointer<UInt8>) {
            length += input.count
            var offset = 0
            if !pending.isEmpty {
                let taken = min(32 - pending.count, input.count)
                pending.append(contentsOf: input[0..<taken])
                offset = taken
                guard pending.count == 32 else { return }
                pending.withUnsafeBufferPointer { consumeStripe($0, at: 0) }
                pending.removeAll(keepingCapacity: true)
            }
            while offset + 32 <= input.count {
                consumeStripe(input, at: offset)
                offset += 32
            }
            pending.append(contentsOf: input[offset...])
        }

        private mutating func consumeStripe(_ input: UnsafeBufferPointer<UInt8>, at offset: Int) {
            stripe(&lanes, input, at: offset)
        }

        /// The hash of everything added.
        public func finish() -> UInt64 {
            var hash: UInt64
            if length >= 32 {
                hash = merged(lanes)
            } else {
                hash = seed &+ prime5
            }
            hash &+= UInt64(length)
            return pending.withUnsafeBufferPointer { finishTail($0, from: 0, into: hash) }
        }
    }

    private typealias Lanes = (UInt64, UInt64, UInt64, UInt64)

    private static func startingLanes(_ seed: UInt64) -> Lanes {
        (seed &+ prime1 &+ prime2, seed &+ prime2, seed, seed &- prime1)
    }

    @inline(__always)
    private static func stripe(_ lanes: inout Lanes, _ input: UnsafeBufferPointer<UInt8>, at offset: Int) {
        lanes.0 = round(lanes.0, read64(input, offset))
        lanes.1 = round(lanes.1, read64(input, offset + 8))
        lanes.2 = round(lanes.2, read64(input, offset + 16))
        lanes.3 = round(lanes.3, read64(input, offset + 24))
    }

    /// The four lanes folded into one, for an input of a stripe or more.
    private static func merged(_ lanes: Lanes) -> UInt64 {
        var hash = rotate(lanes.0, 1) &+ rotate(lanes.1, 7) &+ rotate(lanes.2, 12) &+ rotate(lanes.3, 18)
        hash = mergeLane(hash, lanes.0)
        hash = mergeLane(hash, lanes.1)
        hash = mergeLane(hash, lanes.2)
        return mergeLane(hash, lanes.3)
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        rotate(accumulator &+ lane &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func mergeLane(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
        (hash ^ round(0, lane)) &* prime1 &+ prime4
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        value << count | value >> (64 - count)
    }

    @inline(__always)
    private static func read64(_ input: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(input[offset + index]) << (8 * index) }
        return value
    }

    @inline(__always)
    private static func read32(_ input: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(input[offset + index]) << (8 * index) }
        return value
    }
}
