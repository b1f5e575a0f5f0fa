/// A first-in first-out queue over an array: taking from the front moves
/// a head index instead of the elements, and the space in front is given
/// back once it outweighs what is left. Rooms queue pushes in it and the
/// server's connections their outgoing frames. Inlinable: it sits on the
/// server's hot paths, where an unspecialised generic call would cost more
/// than the work.
public struct Queue<Element> {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    @inlinable public var count: Int { storage.count - head }
    @inlinable public var isEmpty: Bool { head == storage.count }
    @inlinable public var first: Element? { isEmpty ? nil : storage[head] }

    @inlinable public subscript(offset: Int) -> Element {
        get { storage[head + offset] }
        set { storage[head + offset] = newValue }
    }

    @inlinable public mutating func append(_ element: Element) {
        storage.append(element)
    }

    @inlinable public mutating func removeFirst(_ count: Int = 1) {
        precondition(count <= self.count, "removing more than the queue holds")
        head += count
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head > storage.count / 2 {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Forgets every element and the space they took.
    @inlinable public mutating func removeAll() {
        storage = []
        head = 0
    }

    /// The first offset whose element satisfies `predicate`.
    @inlinable public func firstOffset(where predicate: (Element) -> Bool) -> Int? {
        storage[head...].firstIndex(where: predicate).map { $0 - head }
    }

    /// Elements from `offset` on, in order.
    @inlinable public func elements(from offset: Int) -> ArraySlice<Element> { storage[(head + offset)...] }
}

extension Queue: Sendable where Element: Sendable {}
