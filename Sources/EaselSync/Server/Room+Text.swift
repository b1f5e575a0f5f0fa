import EaselModel
import EaselProtocol

/// An accepted op that gives a text characters or edits them, while it
/// waits for storage: the characters it will add (a write of the whole
/// string gives the text its first ones, an insert types some, a delete
/// none), and whether it edits them one by one.
struct PendingCharacters {
    var characters: CharacterRun
    var isEdit: Bool

    init?(_ op: Op) {
        switch op.action {
        case .create(.text, let fields):
            guard case .text(let string)? = fields.first(where: { $0.id == .text }) else { return nil }
            self.init(characters: CharacterRun(first: op.id, count: string.unicodeScalars.count), isEdit: false)
        case .set(_, .text(let string)):
            self.init(characters: CharacterRun(first: op.id, count: string.unicodeScalars.count), isEdit: false)
        case .insertText(_, let insertion):
            self.init(characters: CharacterRun(first: op.id, count: insertion.scalars.count), isEdit: true)
        case .deleteText:
            self.init(characters: CharacterRun(first: op.id, count: 0), isEdit: true)
        default:
            return nil
        }
    }

    private init(characters: CharacterRun, isEdit: Bool) {
        self.characters = characters
        self.isEdit = isEdit
    }
}

extension Room {
    /// A character op means something only against the characters the text
    /// has, committed or pending or given earlier in the push: an insert's
    /// origins and a delete's characters must be among them, and a text
    /// may not grow past `ModelLimits.charactersPerText`.
    func vetText(
        _ op: Op, of entity: EntityID, kind: EntityKind, charactersInPush: inout [EntityID: [PendingCharacters]]
    ) throws(Refusal) {
        guard kind == .text else {
            throw Refusal(code: .fieldNotInKind, message: "a \(kind) has no characters")
        }
        let sequence = committed.textSequenceForEditing(of: entity)
        let given = ((pendingCharacters[entity] ?? []) + (charactersInPush[entity] ?? [])).map { $0.characters }
        switch op.action {
        case .insertText(_, let insertion):
            for origin in [insertion.originLeft, insertion.originRight] {
                guard let origin else { continue }
                guard sequence.contains(origin) || given.contains(where: { $0.contains(origin) }) else {
                    throw Refusal(code: .unknownCharacter, message: "\(entity) has no character \(origin)")
                }
            }
            let count = sequence.totalCount + given.reduce(0) { $0 + $1.count } + insertion.scalars.count
            guard count <= ModelLimits.charactersPerText else {
                throw Refusal(
                    code: .textTooLong,
                    message:
                        "\(entity) would have \(count) characters, deleted ones included; at most \(ModelLimits.charactersPerText)"
                )
            }
        case .deleteText(_, let runs):
            for run in runs where !Self.covers(run, sequence: sequence, given: given) {
                throw Refusal(code: .unknownCharacter, message: "\(entity) lacks some of the characters \(run)")
            }
        default:
            return
        }
        if let text = PendingCharacters(op) { charactersInPush[entity, default: []].append(text) }
    }

    /// Whether every character of `run` is in the text or given since.
    private static func covers(_ run: CharacterRun, sequence: TextSequence, given: [CharacterRun]) -> Bool {
        var done = 0
        while done < run.count {
            let id = run.first.advanced(by: done)
            if let present = sequence.presentRun(from: id) {
                done += present
            } else if let insert = given.first(where: { $0.contains(id) }) {
                done += Int(insert.first.counter &+ UInt64(insert.count) - id.counter)
            } else {
                return false
            }
        }
        return true
    }

    /// Whether the text's characters merge: edited one by one, committed,
    /// pending or earlier in the push.
    func hasCharacterEdits(_ entity: EntityID, inPush: [EntityID: [PendingCharacters]]) -> Bool {
        committed.textSequence(of: entity) != nil
            || pendingCharacters[entity]?.contains(where: { $0.isEdit }) == true
            || inPush[entity]?.contains(where: { $0.isEdit }) == true
    }

    /// A text's earliest pending op on its characters was committed.
    func committedCharacters(of entity: EntityID) {
        pendingCharacters[entity]?.removeFirst()
        if pendingCharacters[entity]?.isEmpty == true { pendingCharacters[entity] = nil }
    }
}

extension CharacterRun {
    func contains(_ id: OpID) -> Bool {
        id.replica == first.replica && id.counter >= first.counter && id.counter - first.counter < UInt64(count)
    }
}
