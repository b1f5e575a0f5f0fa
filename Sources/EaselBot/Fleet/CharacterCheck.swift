import EaselBotScript
import EaselModel

/// The verdict's check on texts: every character op the server
/// acknowledged left its characters where the CRDT says, in the document
/// a fresh client reads at the end. Each typed character is there (with
/// the scalar typed, unless deleted), after the character it was typed after and before
/// the one it was typed before, its run in order; it is deleted exactly
/// when an acknowledged delete named it. Texts deleted as entities are
/// left out: their characters are gone with them.
struct CharacterCheck: Sendable {
    private var inserts: [(bot: String, entity: EntityID, first: OpID, insertion: TextInsertion)] = []
    private var deleted: Set<OpID> = []

    /// Notes one bot's acknowledged op (others are ignored).
    mutating func note(_ op: Op, by bot: String) {
        switch op.action {
        case .insertText(let entity, let insertion):
            inserts.append((bot, entity, op.id, insertion))
        case .deleteText(_, let runs):
            for run in runs {
                for offset in 0..<run.count { deleted.insert(run.first.advanced(by: offset)) }
            }
        default:
            break
        }
    }

    /// How many characters were checked, and what was wrong (at most
    /// `limit` problems, each naming the bot, the character and the text).
    func problems(in document: Document, limit: Int = 10) -> (checked: Int, problems: [String]) {
        var checked = 0
        var problems: [String] = []
        func problem(_ text: String) { if problems.count < limit { problems.append(text) } }
        for insert in inserts where document.isVisible(insert.entity) {
            let sequence = document.textSequenceForEditing(of: insert.entity)
            let what = "\(insert.bot)'s character op \(insert.first) in text \(insert.entity)"
            var previous: Int? = insert.insertion.originLeft.flatMap { sequence.place(of: $0)?.index }
            if let left = insert.insertion.originLeft, previous == nil {
                problem("\(what): the character it was typed after, \(left), is not in the text")
            }
            for (offset, scalar) in insert.insertion.scalars.enumerated() {
                checked += 1
                let id = insert.first.advanced(by: offset)
                guard let place = sequence.place(of: id) else {
                    problem("\(what): character \(id) is not in the text")
                    continue
                }
                // A deleted character's scalar is not part of the state: a
                // client that loaded a snapshot does not have it.
                if !place.isDeleted, place.scalar != scalar {
                    problem("\(what): character \(id) reads \(place.scalar), typed \(scalar)")
                }
                if let previous, place.index <= previous {
                    problem("\(what): character \(id) stands before the character it was typed after")
                }
                if place.isDeleted != deleted.contains(id) {
                    problem(
                        "\(what): character \(id) is \(place.isDeleted ? "deleted" : "there") but "
                            + (place.isDeleted ? "no acknowledged op deleted it" : "an acknowledged op deleted it"))
                }
                previous = place.index
            }
            if let right = insert.insertion.originRight {
                if let before = sequence.place(of: right)?.index {
                    if let previous, previous >= before {
                        problem("\(what): its run ends after \(right), the character it was typed before")
                    }
                } else {
                    problem("\(what): the character it was typed before, \(right), is not in the text")
                }
            }
        }
        return (checked, problems)
    }
}
