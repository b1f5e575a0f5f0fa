import EaselModel
import EaselProtocol

/// Builds a history's state at any position without replaying from the
/// start each time: a forward pass keeps a copy of the document every
/// `interval` ops, so going back or jumping costs at most `interval` ops.
/// The copies share storage with each other until an op changes them.
public struct Timeline: Sendable {
    public let history: OpHistory
    public let interval: Int
    /// `checkpoints[i]` is the state at `history.earliest + i * interval`.
    private var checkpoints: [Document]

    /// Keeps at most about 256 checkpoints, and one every 64 ops or more.
    public init(_ history: OpHistory, interval: Int? = nil) {
        self.history = history
        self.interval = max(1, interval ?? max(64, history.ops.count / 256))
        checkpoints = [history.baseDocument]
    }

    /// The state after the op at `position`.
    public mutating func document(at position: UInt64) throws(ReplayError) -> Document {
        try history.checkReachable(position)
        let offset = Int(position - history.earliest)
        let wanted = offset / interval
        while checkpoints.count <= wanted {
            let from = (checkpoints.count - 1) * interval
            checkpoints.append(Self.apply(history.ops[from..<from + interval], to: checkpoints[checkpoints.count - 1]))
        }
        let from = wanted * interval
        return Self.apply(history.ops[from..<offset], to: checkpoints[wanted])
    }

    /// Keeps `document`, the state at `position`, when it is the next
    /// checkpoint due: a forward scan leaves the timeline ready for jumps.
    mutating func passed(_ position: UInt64, with document: Document) {
        let offset = Int(position - history.earliest)
        if offset == checkpoints.count * interval { checkpoints.append(document) }
    }

    private static func apply(_ ops: ArraySlice<LoggedOp>, to start: Document) -> Document {
        var document = start
        for logged in ops { document.apply(logged.op) }
        return document
    }
}
