extension Op {
    /// Checks what can be checked from the op alone: counters, transaction,
    /// finite numbers, string and key limits, fields of a create's kind,
    /// sample chunks. Whether the entity exists and has the field is the
    /// document's question (`Document.validate(_:)`).
    public func validate() throws(ModelError) {
        guard id.counter > 0, transaction.first.counter > 0 else { throw .zeroCounter }
        guard transaction.first.replica == id.replica, transaction.first.counter <= id.counter else {
            throw .foreignTransaction
        }
        if entity == .document {
            guard case .set(_, let field) = action else { throw .notADocumentField(nil) }
            guard FieldID.document.contains(field.id) else { throw .notADocumentField(field.id) }
            try field.validate()
            return
        }
        switch action {
        case .create(let kind, let fields):
            for field in fields {
                guard kind.has(field.id) else { throw .fieldNotInKind(field.id, kind) }
                try field.validate()
            }
        case .set(_, let field):
            try field.validate()
        case .delete, .restore:
            break
        case .append(_, let start, let samples):
            guard !samples.isEmpty else { throw .invalidSamples("an append needs at least one sample") }
            guard samples.count <= ModelLimits.samplesPerAppend else {
                throw .invalidSamples("\(samples.count) samples; at most \(ModelLimits.samplesPerAppend) per append")
            }
            guard UInt64(start) + UInt64(samples.count) <= UInt64(UInt32.max) else {
                throw .invalidSamples("the chunk reaches past sample index \(UInt32.max)")
            }
            guard samples.allSatisfy({ $0.isFinite }) else { throw .invalidSamples("samples must be finite numbers") }
        case .insertText(_, let insertion):
            try Self.validate(insertion, id: id)
        case .deleteText(_, let runs):
            try Self.validate(runs)
        case .textSnapshot(_, let snapshot):
            try Self.validate(snapshot)
        }
    }
}

extension Op {
    // Character ops are rare beside sets: checked out of line, so checking a
    // set stays small.
    @inline(never)
    static func validate(_ insertion: TextInsertion, id: OpID) throws(ModelError) {
        let count = insertion.scalars.count
        guard count > 0 else { throw .invalidText("an insert types at least one character") }
        guard count <= ModelLimits.scalarsPerInsert else {
            throw .invalidText("\(count) characters in one insert; at most \(ModelLimits.scalarsPerInsert)")
        }
        guard id.counter <= UInt64.max - UInt64(count) else {
            throw .invalidText("the characters' counters reach past the largest")
        }
        try validateOrigin(insertion.originLeft, of: id, "an insert")
        try validateOrigin(insertion.originRight, of: id, "an insert")
    }

    /// An origin, if any, is a character typed before the one naming it.
    /// (Checked one at a time: a list of the two would be allocated per op.)
    @inline(__always)
    private static func validateOrigin(_ origin: OpID?, of id: OpID, _ what: String) throws(ModelError) {
        guard let origin else { return }
        guard origin.counter > 0 else { throw .zeroCounter }
        guard origin.replica != id.replica || origin.counter < id.counter else {
            throw .invalidText("\(what)'s origin \(origin) is not typed before it")
        }
    }

    @inline(never)
    static func validate(_ runs: [CharacterRun]) throws(ModelError) {
        guard !runs.isEmpty else { throw .invalidText("a delete names at least one character") }
        guard runs.count <= ModelLimits.runsPerDelete else {
            throw .invalidText("\(runs.count) runs in one delete; at most \(ModelLimits.runsPerDelete)")
        }
        for run in runs { try validateRun(from: run.first, count: run.count) }
    }

    /// Consecutive characters of one replica, as a delete or a snapshot
    /// names them.
    private static func validateRun(from first: OpID, count: Int) throws(ModelError) {
        guard count > 0, count <= ModelLimits.charactersPerText else {
            throw .invalidText("a run of \(count) characters")
        }
        guard first.counter > 0 else { throw .zeroCounter }
        guard first.counter <= UInt64.max - UInt64(count) else {
            throw .invalidText("a run's counters reach past the largest")
        }
    }
}

extension Op {
    /// A piece of a text's snapshot: within the limits, its runs well
    /// formed, a scalar for each character not deleted. Whether the runs
    /// name each character once and only origins they hold is the
    /// loader's question (`TextSequence(snapshot:)`).
    @inline(never)
    static func validate(_ snapshot: TextSnapshot) throws(ModelError) {
        let runs = snapshot.runs
        guard !runs.isEmpty else { throw .invalidText("a text's snapshot holds at least one run") }
        guard runs.count <= ModelLimits.runsPerTextSnapshot else {
            throw .invalidText("\(runs.count) runs in one piece of a snapshot; at most \(ModelLimits.runsPerTextSnapshot)")
        }
        guard snapshot.scalars.count <= ModelLimits.scalarsPerTextSnapshot else {
            throw .invalidText(
                "\(snapshot.scalars.count) scalars in one piece of a snapshot; at most \(ModelLimits.scalarsPerTextSnapshot)")
        }
        for run in runs {
            try validateRun(from: run.first, count: run.count)
            try validateOrigin(run.originLeft, of: run.first, "a run")
            try validateOrigin(run.originRight, of: run.first, "a run")
        }
        let total = snapshot.characterCount
        guard total <= ModelLimits.charactersPerText else {
            throw .invalidText("\(total) characters in one piece of a snapshot; a text has at most \(ModelLimits.charactersPerText)")
        }
        guard snapshot.scalars.count == snapshot.visibleCount else {
            throw .invalidText("\(snapshot.scalars.count) scalars for \(snapshot.visibleCount) characters not deleted")
        }
    }
}

extension Field {
    public func validate() throws(ModelError) {
        switch self {
        case .x(let value), .y(let value), .scale(let value), .rotation(let value),
            .weight(let value), .size(let value), .width(let value), .height(let value):
            guard value.isFinite else { throw .nonFiniteNumber(id) }
        case .zKey(let key):
            try key.validate()
        case .character(let string), .text(let string), .font(let string):
            let limit = ModelLimits.stringLimit(of: id)
            let bytes = string.utf8.count
            guard bytes <= limit else { throw .stringTooLong(id, bytes: bytes, limit: limit) }
        case .erases(let erased):
            guard erased.count <= ModelLimits.erasedEntities else {
                throw .invalidInput("an eraser erases at most \(ModelLimits.erasedEntities) entities, not \(erased.count)")
            }
            var seen = Set<EntityID>()
            for target in erased {
                let transform = target.transform
                guard transform.x.isFinite, transform.y.isFinite, transform.rotation.isFinite,
                    transform.scale.isFinite
                else { throw .nonFiniteNumber(id) }
                guard target.entity != .document, target.entity.creation.counter > 0 else {
                    throw .invalidInput("an eraser erases entities, never the document itself")
                }
                guard seen.insert(target.entity).inserted else {
                    throw .invalidInput("an eraser names \(target.entity) twice")
                }
            }
        case .color, .fill, .textStyle, .alignment, .shape, .tool, .endCap, .blob, .fit:
            break
        }
    }
}

extension Op {
    /// Whether every position the op writes (an entity's x and y, an
    /// erased entity's, a stroke sample's) lies within the canvas,
    /// `ModelLimits.coordinate`. A push is held to it (a server refuses
    /// one beyond with 108) and the editor writes nothing beyond it; what
    /// is stored or sent by a server is not, so a document written before
    /// the bound still loads. Call after `validate()`: NaN fails here too.
    public func validatePositions() throws(ModelError) {
        switch action {
        case .create(_, let fields):
            for field in fields { try field.validatePosition() }
        case .set(_, let field):
            try field.validatePosition()
        case .append(_, _, let samples):
            let edge = ModelLimits.coordinate
            guard samples.allSatisfy({ abs($0.x) <= edge && abs($0.y) <= edge }) else {
                throw .invalidSamples("a sample lies beyond ±1000000 from the stroke's origin, past any canvas")
            }
        default:
            break
        }
    }
}

extension Field {
    fileprivate func validatePosition() throws(ModelError) {
        let edge = ModelLimits.coordinate
        switch self {
        case .x(let value), .y(let value):
            guard abs(value) <= edge else { throw .beyondCanvas(id) }
        case .erases(let erased):
            for target in erased where !(abs(target.transform.x) <= edge && abs(target.transform.y) <= edge) {
                throw .beyondCanvas(id)
            }
        default:
            break
        }
    }
}
