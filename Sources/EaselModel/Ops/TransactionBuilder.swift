extension LamportClock {
    /// Starts a transaction: the ops of one gesture or command, undone and
    /// redone together. Finish it with `commit(_:)`; one transaction at a
    /// time per clock.
    public func beginTransaction() throws(ModelError) -> TransactionBuilder {
        TransactionBuilder(clock: self, id: TransactionID(try peek))
    }

    /// Adds more ops to a transaction this replica already began — a stroke
    /// streams its samples this way and stays one step for undo.
    public func continueTransaction(_ id: TransactionID) throws(ModelError) -> TransactionBuilder {
        guard id.first.replica == replica else { throw .foreignTransaction }
        return TransactionBuilder(clock: self, id: id)
    }

    /// Takes the transaction's ops and advances the clock past them.
    public mutating func commit(_ transaction: TransactionBuilder) -> [Op] {
        observe(transaction.clock.counter)
        return transaction.ops
    }
}

/// Collects the validated ops of one transaction.
public struct TransactionBuilder: Sendable {
    private(set) var clock: LamportClock
    public let id: TransactionID
    public private(set) var ops: [Op] = []

    fileprivate init(clock: LamportClock, id: TransactionID) {
        self.clock = clock
        self.id = id
    }

    /// Creates an entity; fields left out keep their defaults.
    @discardableResult
    public mutating func create(_ kind: EntityKind, _ fields: [Field]) throws(ModelError) -> EntityID {
        let op = try add(.create(kind, fields))
        return EntityID(op.id)
    }

    public mutating func set(_ field: Field, of entity: EntityID) throws(ModelError) {
        try add(.set(entity, field))
    }

    public mutating func delete(_ entity: EntityID) throws(ModelError) {
        try add(.delete(entity))
    }

    public mutating func restore(_ entity: EntityID) throws(ModelError) {
        try add(.restore(entity))
    }

    public mutating func append(_ samples: [StrokeSample], to stroke: EntityID, at start: UInt32) throws(ModelError) {
        try add(.append(stroke, start: start, samples: samples))
    }

    /// Types `scalars` into a text between two of its characters (nil: its
    /// start or end); the op, whose ID is the first character's.
    @discardableResult
    public mutating func insertText(
        _ scalars: [Unicode.Scalar], into text: EntityID, after originLeft: OpID?, before originRight: OpID?
    ) throws(ModelError) -> Op {
        try add(.insertText(text, TextInsertion(originLeft: originLeft, originRight: originRight, scalars: scalars)))
    }

    public mutating func deleteText(_ runs: [CharacterRun], of text: EntityID) throws(ModelError) {
        try add(.deleteText(text, runs))
    }

    /// Deletes any number of runs, in as many deletes as
    /// `ModelLimits.runsPerDelete` asks.
    public mutating func deleteText(inChunks runs: [CharacterRun], of text: EntityID) throws(ModelError) {
        for start in stride(from: 0, to: runs.count, by: ModelLimits.runsPerDelete) {
            try deleteText(Array(runs[start..<min(runs.count, start + ModelLimits.runsPerDelete)]), of: text)
        }
    }

    /// Types any number of characters between two, in as many inserts as
    /// `ModelLimits.scalarsPerInsert` asks, each typed on from the last;
    /// the runs of characters typed.
    @discardableResult
    public mutating func insertText(
        inChunks scalars: [Unicode.Scalar], into text: EntityID, after originLeft: OpID?, before originRight: OpID?
    ) throws(ModelError) -> [CharacterRun] {
        var left = originLeft
        var typed: [CharacterRun] = []
        for start in stride(from: 0, to: scalars.count, by: ModelLimits.scalarsPerInsert) {
            let piece = Array(scalars[start..<min(scalars.count, start + ModelLimits.scalarsPerInsert)])
            let op = try insertText(piece, into: text, after: left, before: originRight)
            typed.append(CharacterRun(first: op.id, count: piece.count))
            left = op.id.advanced(by: piece.count - 1)
        }
        return typed
    }

    /// Creates an entity as a copy is made: a text longer than a create may
    /// carry (`ModelLimits.textBytes`, which typing a character at a time
    /// passes) is created empty and its characters typed in after it.
    public mutating func create(copying kind: EntityKind, _ fields: [Field]) throws(ModelError) -> EntityID {
        guard let index = fields.firstIndex(where: { $0.id == .text }), case .text(let string) = fields[index],
            string.utf8.count > ModelLimits.textBytes
        else { return try create(kind, fields) }
        var short = fields
        short[index] = .text("")
        let entity = try create(kind, short)
        try insertText(inChunks: Array(string.unicodeScalars), into: entity, after: nil, before: nil)
        return entity
    }

    /// Appends any number of samples from `start`, in as many appends as
    /// `ModelLimits.samplesPerAppend` asks; returns the index after the last.
    @discardableResult
    public mutating func append(
        inChunks samples: [StrokeSample], to stroke: EntityID, at start: UInt32
    ) throws(ModelError) -> UInt32 {
        var next = start
        var offset = 0
        while offset < samples.count {
            let end = min(offset + ModelLimits.samplesPerAppend, samples.count)
            try append(Array(samples[offset..<end]), to: stroke, at: next)
            next += UInt32(end - offset)
            offset = end
        }
        return next
    }

    @discardableResult
    private mutating func add(_ action: Op.Action) throws(ModelError) -> Op {
        let op = Op(id: try clock.peek, transaction: id, action: action.keptOnCanvas)
        try op.validate()
        try op.validatePositions()
        _ = try clock.tick()
        // An insert's characters, and a text string's, take a counter each.
        clock.observe(op.lastCounter)
        ops.append(op)
        return op
    }
}

extension Op.Action {
    /// The action with its positions brought within the canvas: a drag or
    /// a paste past the edge stops at it instead of making an op nobody
    /// accepts.
    fileprivate var keptOnCanvas: Op.Action {
        switch self {
        case .set(let entity, let field): .set(entity, field.keptOnCanvas)
        case .create(let kind, let fields): .create(kind, fields.map { $0.keptOnCanvas })
        default: self
        }
    }
}

extension Field {
    fileprivate var keptOnCanvas: Field {
        switch self {
        case .x(let value): .x(Self.keptOnCanvas(value))
        case .y(let value): .y(Self.keptOnCanvas(value))
        default: self
        }
    }

    /// NaN and the infinities stay as they are, for validation to refuse.
    private static func keptOnCanvas(_ value: Float) -> Float {
        let edge = ModelLimits.coordinate
        return value.isFinite ? min(max(value, -edge), edge) : value
    }
}
