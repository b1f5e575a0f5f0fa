/// Every scalar a text was ever typed with, in the order the characters
/// arrived: one byte each while all of them are Latin-1, as most texts are,
/// four bytes each from the first one that is not. A text of 100,000
/// characters typed over 180,000 keystrokes then holds 180 kB of scalars,
/// not 720 kB.
struct ScalarStore: Sendable {
    private var narrow: [UInt8] = []
    private var wide: [Unicode.Scalar] = []
    private var isWide = false

    var count: Int { isWide ? wide.count : narrow.count }

    var storageBytes: Int {
        narrow.capacity + wide.capacity * MemoryLayout<Unicode.Scalar>.stride
    }

    @inline(__always)
    subscript(arrival: Int) -> Unicode.Scalar {
        isWide ? wide[arrival] : Unicode.Scalar(narrow[arrival])
    }

    mutating func reserveCapacity(_ count: Int) {
        if isWide { wide.reserveCapacity(count) } else { narrow.reserveCapacity(count) }
    }

    mutating func append(contentsOf scalars: UnsafeBufferPointer<Unicode.Scalar>) {
        // A keystroke: one plain append, not a copy of a run.
        if scalars.count == 1, !isWide, scalars[0].value <= UInt32(UInt8.max) {
            narrow.append(UInt8(truncatingIfNeeded: scalars[0].value))
            return
        }
        if !isWide {
            let count = scalars.count
            // Narrowed into scratch room, then copied in at once: plain
            // loops over memory, without the checks `Array.append` makes
            // for each element.
            let fits = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { bytes in
                var widest: UInt32 = 0
                for index in 0..<count {
                    let value = scalars[index].value
                    widest |= value
                    bytes[index] = UInt8(truncatingIfNeeded: value)
                }
                guard widest <= UInt32(UInt8.max) else { return false }
                narrow.append(contentsOf: UnsafeBufferPointer(bytes))
                return true
            }
            if fits { return }
            widen()
        }
        wide.append(contentsOf: scalars)
    }

    /// Appends valid UTF-8 holding `count` scalars.
    mutating func append(utf8: UnsafeRawBufferPointer, count: Int) {
        if count == utf8.count, !isWide {
            // ASCII: its bytes are the scalars' Latin-1 bytes.
            narrow.append(contentsOf: utf8.assumingMemoryBound(to: UInt8.self))
            return
        }
        withUnsafeTemporaryAllocation(of: Unicode.Scalar.self, capacity: count) { room in
            var decoded = 0
            for scalar in UTF8Scalars(utf8: utf8, count: count) {
                room.initializeElement(at: decoded, to: scalar)
                decoded += 1
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: room[..<decoded]))
        }
    }

    /// Appends `count` scalars no one knows (U+0000): deleted characters
    /// a snapshot gave without theirs.
    mutating func appendUnknown(_ count: Int) {
        if isWide { wide.append(contentsOf: repeatElement(Unicode.Scalar(0), count: count)) } else {
            narrow.append(contentsOf: repeatElement(0, count: count))
        }
    }

    /// Appends the scalars of the arrivals in `range` to `scalars`.
    func copy(_ range: Range<Int>, to scalars: inout [Unicode.Scalar]) {
        if isWide {
            scalars.append(contentsOf: wide[range])
        } else {
            for byte in narrow[range] { scalars.append(Unicode.Scalar(byte)) }
        }
    }

    private mutating func widen() {
        wide.reserveCapacity(narrow.capacity)
        for byte in narrow { wide.append(Unicode.Scalar(byte)) }
        narrow = []
        isWide = true
    }
}
