/// Characters typed at one place, as an op carries them: the characters
/// that were to their left and right there (nil: the text's start and
/// end), and what was typed. Their IDs are the op's and the ones after.
///
/// All of it is kept in one allocation, its scalars after its origins, so
/// that an op of typing costs one allocation to decode and one to free,
/// and the op's action holds one reference (an insert boxed apart from a
/// list of its scalars cost two of each, more than merging its characters).
/// Sendable as the value it is: its storage is never written once made.
public struct TextInsertion: Hashable, @unchecked Sendable {
    private var storage: TextInsertionStorage

    public init(originLeft: OpID?, originRight: OpID?, scalars: some Collection<Unicode.Scalar>) {
        storage = TextInsertionStorage.make(originLeft: originLeft, originRight: originRight, capacity: scalars.count)
        storage.withUnsafeMutablePointers { header, elements in
            let room = UnsafeMutableBufferPointer(start: elements, count: header.pointee.capacity)
            header.pointee.count = room.initialize(fromContentsOf: scalars)
        }
    }

    /// Room for up to `capacity` scalars, which `initialize` writes in
    /// place, saying how many it wrote: a decoder's way in, with no list
    /// between the bytes and the op.
    public init<Failure: Error>(
        originLeft: OpID?, originRight: OpID?, capacity: Int,
        initializingWith initialize: (UnsafeMutableBufferPointer<Unicode.Scalar>) throws(Failure) -> Int
    ) throws(Failure) {
        storage = TextInsertionStorage.make(originLeft: originLeft, originRight: originRight, capacity: capacity)
        let room = storage.withUnsafeMutablePointerToElements { UnsafeMutableBufferPointer(start: $0, count: capacity) }
        let count = try initialize(room)
        precondition(count <= capacity, "scalars written within the room")
        storage.withUnsafeMutablePointerToHeader { $0.pointee.count = count }
    }

    public var originLeft: OpID? { storage.head.originLeft }
    public var originRight: OpID? { storage.head.originRight }

    /// What was typed, read in place.
    public var scalars: Scalars { Scalars(storage: storage) }

    /// The scalars as memory, for a reader that copies them at once.
    public func withScalars<Result>(_ body: (UnsafeBufferPointer<Unicode.Scalar>) -> Result) -> Result {
        storage.withUnsafeMutablePointers { header, elements in
            body(UnsafeBufferPointer(start: elements, count: header.pointee.count))
        }
    }

    /// The same insertion with `more` typed after its characters.
    public func appending(_ more: some Collection<Unicode.Scalar>) -> TextInsertion {
        TextInsertion(originLeft: originLeft, originRight: originRight, scalars: Array(scalars) + Array(more))
    }

    public static func == (lhs: TextInsertion, rhs: TextInsertion) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.originLeft == rhs.originLeft && lhs.originRight == rhs.originRight
                && lhs.scalars.elementsEqual(rhs.scalars))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(originLeft)
        hasher.combine(originRight)
        hasher.combine(scalars.count)
        for scalar in scalars { hasher.combine(scalar) }
    }

    /// An insertion's scalars, in place: counted, indexed and copied
    /// without a list of their own.
    public struct Scalars: RandomAccessCollection, @unchecked Sendable {
        fileprivate let storage: TextInsertionStorage

        public var startIndex: Int { 0 }
        public var endIndex: Int { storage.head.count }

        public subscript(index: Int) -> Unicode.Scalar {
            precondition(indices.contains(index), "an index of the insertion's scalars")
            return storage.withUnsafeMutablePointerToElements { $0[index] }
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
    var count: Int
    var capacity: Int
}

final class TextInsertionStorage: ManagedBuffer<TextInsertionHeader, Unicode.Scalar> {
    /// The header, read through a pointer: `header`, a class's stored
    /// property, is checked for exclusive access at run time each read.
    var head: TextInsertionHeader { withUnsafeMutablePointerToHeader { $0.pointee } }

    static func make(originLeft: OpID?, originRight: OpID?, capacity: Int) -> TextInsertionStorage {
        let buffer = create(minimumCapacity: capacity) { _ in
            TextInsertionHeader(originLeft: originLeft, originRight: originRight, count: 0, capacity: capacity)
        }
        return unsafeDowncast(buffer, to: TextInsertionStorage.self)
    }
}
