/// Characters typed at one place, as an op carries them: the characters
/// that were to their left and right there (nil: the text's start and
/// end), and what was typed. Their IDs are the op's and the ones after.
///
/// All of it is kept in one allocation, what was typed as UTF-8 after the
/// origins: an op of typing costs one allocation to decode and one to
/// free, its action holds one reference, and a decoder copies the wire's
/// bytes in as they are (an insert boxed apart from a list of its scalars
/// cost two allocations of each, more than merging its characters, and
/// four bytes a character). Sendable as the value it is: its storage is
/// never written once made.
public struct TextInsertion: Hashable, @unchecked Sendable {
    private var storage: TextInsertionStorage

    public init(originLeft: OpID?, originRight: OpID?, scalars: some Collection<Unicode.Scalar>) {
        let byteCount = scalars.reduce(0) { $0 + UTF8.width($1) }
        storage = TextInsertionStorage.make(
            originLeft: originLeft, originRight: originRight, count: scalars.count, byteCount: byteCount)
        storage.withUnsafeMutablePointerToElements { bytes in
            var at = 0
            for scalar in scalars {
                for unit in scalar.utf8 {
                    bytes[at] = unit
                    at += 1
                }
            }
        }
    }

    /// `utf8`, which must be valid and hold `count` scalars, copied in as
    /// it is: a decoder's way in, once it has checked the bytes.
    public init(originLeft: OpID?, originRight: OpID?, validUTF8 utf8: UnsafeRawBufferPointer, count: Int) {
        storage = TextInsertionStorage.make(
            originLeft: originLeft, originRight: originRight, count: count, byteCount: utf8.count)
        storage.withUnsafeMutablePointerToElements { bytes in
            UnsafeMutableRawBufferPointer(start: bytes, count: utf8.count).copyMemory(from: utf8)
        }
    }

    public var originLeft: OpID? { storage.head.originLeft }
    public var originRight: OpID? { storage.head.originRight }

    /// What was typed, read in place.
    public var scalars: Scalars { Scalars(storage: storage) }

    /// What was typed as UTF-8, and how many scalars that is, for a reader
    /// that copies it at once.
    public func withUTF8<Result>(_ body: (UnsafeRawBufferPointer, _ count: Int) -> Result) -> Result {
        storage.withUnsafeMutablePointers { header, bytes in
            body(UnsafeRawBufferPointer(start: bytes, count: header.pointee.byteCount), header.pointee.count)
        }
    }

    /// The same insertion with `more` typed after its characters.
    public func appending(_ more: some Collection<Unicode.Scalar>) -> TextInsertion {
        TextInsertion(originLeft: originLeft, originRight: originRight, scalars: Array(scalars) + Array(more))
    }

    public static func == (lhs: TextInsertion, rhs: TextInsertion) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.originLeft == rhs.originLeft && lhs.originRight == rhs.originRight
                && lhs.withUTF8 { left, _ in rhs.withUTF8 { right, _ in left.elementsEqual(right) } })
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(originLeft)
        hasher.combine(originRight)
        withUTF8 { bytes, _ in hasher.combine(bytes: bytes) }
    }

    /// An insertion's scalars, in place: counted at once, read in order.
    public struct Scalars: BidirectionalCollection, @unchecked Sendable {
        fileprivate let storage: TextInsertionStorage

        /// A scalar's place: the offset of its first byte.
        public struct Index: Comparable, Sendable {
            fileprivate var offset: Int

            public static func < (lhs: Index, rhs: Index) -> Bool { lhs.offset < rhs.offset }
        }

        public var startIndex: Index { Index(offset: 0) }
        public var endIndex: Index { Index(offset: storage.head.byteCount) }
        public var count: Int { storage.head.count }

        public func index(after index: Index) -> Index {
            Index(offset: index.offset + UTF8Scalars.width(leading: byte(at: index.offset)))
        }

        public func index(before index: Index) -> Index {
            var offset = index.offset - 1
            // Back over continuation bytes, 0b10xxxxxx.
            while byte(at: offset) & 0xC0 == 0x80 { offset -= 1 }
            return Index(offset: offset)
        }

        public subscript(index: Index) -> Unicode.Scalar {
            precondition(index.offset >= 0 && index.offset < storage.head.byteCount, "an index of the scalars")
            return storage.withUnsafeMutablePointers { header, bytes in
                var iterator = UTF8Scalars.Iterator(
                    utf8: UnsafeRawBufferPointer(start: bytes, count: header.pointee.byteCount), offset: index.offset)
                return iterator.next().unsafelyUnwrapped
            }
        }

        private func byte(at offset: Int) -> UInt8 {
            precondition(offset >= 0 && offset < storage.head.byteCount, "a byte of the scalars")
            return storage.withUnsafeMutablePointerToElements { $0[offset] }
        }
    }
}

extension TextInsertion: CustomStringConvertible {
    public var description: String {
        var typed = String.UnicodeScalarView()
        typed.append(contentsOf: scalars)
        return "TextInsertion(originLeft: \(originLeft.map { "\($0)" } ?? "nil"), originRight: \(originRight.map { "\($0)" } ?? "nil"), \(String(typed).debugDescription))"
    }
}

struct TextInsertionHeader {
    var originLeft: OpID?
    var originRight: OpID?
    /// Scalars typed.
    var count: Int
    var byteCount: Int
}

final class TextInsertionStorage: ManagedBuffer<TextInsertionHeader, UInt8> {
    static func make(originLeft: OpID?, originRight: OpID?, count: Int, byteCount: Int) -> TextInsertionStorage {
        let buffer = create(minimumCapacity: byteCount) { _ in
            TextInsertionHeader(originLeft: originLeft, originRight: originRight, count: count, byteCount: byteCount)
        }
        return unsafeDowncast(buffer, to: TextInsertionStorage.self)
    }

    /// The header, read through a pointer: `header`, a class's stored
    /// property, is checked for exclusive access at run time each read.
    var head: TextInsertionHeader { withUnsafeMutablePointerToHeader { $0.pointee } }
}
