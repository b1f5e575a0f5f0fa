import EaselSync

/// What one connection has waiting for its socket, in order: frames of its
/// own, and shared welcomes (whose frames every joiner of the same welcome
/// holds at once). Socket-free, so its accounting is tested on its own.
struct OutgoingQueue {
    private enum Item {
        case frame(OutFrame, endsWelcome: Bool)
        case shared(SharedWelcome)
    }

    private var items = Queue<Item>()
    /// The frames of a shared welcome at the head, being written.
    private var front: ArraySlice<OutFrame> = []
    /// Bytes of this connection's own frames queued and not yet written:
    /// what the queue bound counts. A shared welcome is held once for all
    /// its joiners, so it does not count; the welcome deadline bounds it.
    private(set) var ownedBytes = 0
    /// Bytes of the head frame already written: a frame bigger than one
    /// write leaves in pieces.
    var writtenOfHead = 0
    /// Whether the welcome's last frame is still queued.
    private(set) var awaitsWelcome = false

    var isEmpty: Bool { front.isEmpty && items.isEmpty }

    /// Queues a frame of this connection's own; `endsWelcome` marks the
    /// welcome's last.
    mutating func append(_ frame: OutFrame, endsWelcome: Bool = false) {
        items.append(.frame(frame, endsWelcome: endsWelcome))
        ownedBytes += frame.count
        if endsWelcome { awaitsWelcome = true }
    }

    /// Queues a shared welcome's content, written once it is encoded.
    mutating func append(_ shared: SharedWelcome) {
        items.append(.shared(shared))
    }

    /// The frame to write next, left in the queue; nil when the queue is
    /// empty or waits for a shared welcome still being encoded.
    mutating func next() -> OutFrame? {
        if let frame = front.first { return frame }
        guard let item = items.first else { return nil }
        switch item {
        case .frame(let frame, _):
            return frame
        case .shared(let shared):
            guard let frames = shared.frames else { return nil }
            items.removeFirst()
            front = ArraySlice(frames)
            return next()
        }
    }

    /// The head frame is written: drops it.
    mutating func removeNext() {
        writtenOfHead = 0
        if !front.isEmpty {
            front.removeFirst()
            return
        }
        guard case .frame(let frame, let endsWelcome)? = items.first else { return }
        ownedBytes -= frame.count
        if endsWelcome { awaitsWelcome = false }
        items.removeFirst()
    }

    /// Forgets everything queued (a connection closed for reading too
    /// slowly), except a frame partly written: the stream must finish it
    /// before the close frame can follow.
    mutating func removeAll() {
        let partial = writtenOfHead > 0 ? next() : nil
        items.removeAll()
        front = []
        ownedBytes = 0
        awaitsWelcome = false
        if let partial {
            items.append(.frame(partial, endsWelcome: false))
            ownedBytes = partial.count
        }
    }
}
