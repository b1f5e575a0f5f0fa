/// A first-in first-out queue over an array: taking from the front moves
/// a head index instead of the elements, and the space in front is given
/// back once it outweighs what is left.
struct Queue<Element> {
    private var storage: [Element] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }
    var first: Element? { isEmpty ? nil : storage[head] }

    subscript(offset: Int) -> Element {
        get { storage[head + offset] }
        set { storage[head + offset] = newValue }
    }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    mutating func removeFirst(_ count: Int) {
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

    /// The first offset whose element satisfies `predicate`.
    func firstOffset(where predicate: (Element) -> Bool) -> Int? {
        storage[head...].firstIndex(where: predicate).map { $0 - head }
    }

    /// Elements from `offset` on, in order.
    func elements(from offset: Int) -> ArraySlice<Element> { storage[(head + offset)...] }
}
