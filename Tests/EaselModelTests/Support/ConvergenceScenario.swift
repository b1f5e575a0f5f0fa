import EaselTestSupport

@testable import EaselModel

/// Counts over many scenarios: the convergence test fails if any is zero,
/// because then the scenarios did not exercise what they claim to.
struct ConvergenceCounts: CustomStringConvertible {
    var scenarios = 0
    var ops = 0
    var creates = 0
    var sets = 0
    var deletes = 0
    var restores = 0
    var zMoves = 0
    var rekeys = 0
    var appends = 0
    var conflictingAppends = 0
    var conflictingWrites = 0
    var setsBeforeCreate = 0
    var duplicateDeliveries = 0
    var chunksWaitingForGap = 0

    mutating func add(_ other: ConvergenceCounts) {
        scenarios += other.scenarios
        ops += other.ops
        creates += other.creates
        sets += other.sets
        deletes += other.deletes
        restores += other.restores
        zMoves += other.zMoves
        rekeys += other.rekeys
        appends += other.appends
        conflictingAppends += other.conflictingAppends
        conflictingWrites += other.conflictingWrites
        setsBeforeCreate += other.setsBeforeCreate
        duplicateDeliveries += other.duplicateDeliveries
        chunksWaitingForGap += other.chunksWaitingForGap
    }

    var named: [(String, Int)] {
        [
            ("scenarios", scenarios), ("ops", ops), ("creates", creates), ("sets", sets),
            ("deletes", deletes), ("restores", restores), ("z-order moves", zMoves), ("re-keys", rekeys),
            ("appends", appends), ("conflicting appends", conflictingAppends),
            ("conflicting writes", conflictingWrites), ("sets before create", setsBeforeCreate),
            ("duplicate deliveries", duplicateDeliveries), ("chunks waiting for a gap", chunksWaitingForGap),
        ]
    }

    var description: String {
        named.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}

/// One replica in a scenario: its clock, its document, and the ops others
/// sent that it has not received yet.
struct ScenarioReplica {
    var clock: LamportClock
    var document = Document()
    var inbox: [Op] = []
    var delivered: Set<OpID> = []
    /// For each of this replica's strokes, where its next chunk starts.
    var strokeEnds: [EntityID: UInt32] = [:]

    init(replica: ReplicaID) {
        clock = LamportClock(replica: replica)
    }

    /// Applies an op from anyone (its own included) and counts what it did.
    mutating func receive(_ op: Op, counts: inout ConvergenceCounts) {
        if !delivered.insert(op.id).inserted { counts.duplicateDeliveries += 1 }
        clock.observe(op.id.counter)
        switch document.apply(op) {
        case .superseded: counts.conflictingWrites += 1
        case .appliedBeforeCreate: counts.setsBeforeCreate += 1
        case .waitingForGap: counts.chunksWaitingForGap += 1
        case .applied, .duplicate, .refused: break
        }
    }
}

/// Replicas that take turns editing the same entities and receiving random
/// subsets of each other's ops, then receive everything in random orders
/// with duplicates.
struct ConvergenceScenario {
    let seed: UInt64
    private(set) var replicas: [ScenarioReplica]
    private(set) var log: [Op] = []
    private(set) var counts = ConvergenceCounts(scenarios: 1)
    private var random: SeededRandom

    init(seed: UInt64) {
        self.seed = seed
        var random = SeededRandom(seed: seed)
        let replicaCount = Int.random(in: 3...5, using: &random)
        replicas = (0..<replicaCount).map { _ in ScenarioReplica(replica: ReplicaID(rawValue: random.next())) }
        self.random = random
    }

    mutating func run() {
        let rounds = Int.random(in: 20...50, using: &random)
        for _ in 0..<rounds {
            let index = Int.random(in: replicas.indices, using: &random)
            if random.chance(0.55) {
                edit(at: index)
            } else {
                receiveSome(at: index)
            }
        }
        for index in replicas.indices {
            var everything = log + log.filter { _ in random.chance(0.3) }
            everything.shuffle(using: &random)
            for op in everything { replicas[index].receive(op, counts: &counts) }
        }
    }

    /// The replicas whose full state differs from the first one's, if any.
    var divergentReplicas: [Int] {
        let reference = replicas[0].document.canonicalEncoding
        return replicas.indices.filter { replicas[$0].document.canonicalEncoding != reference }
    }

    private mutating func receiveSome(at index: Int) {
        var batch = replicas[index].inbox.filter { _ in random.chance(0.5) }
        let batchIDs = Set(batch.map(\.id))
        replicas[index].inbox.removeAll { batchIDs.contains($0.id) }
        batch += batch.filter { _ in random.chance(0.1) }
        batch.shuffle(using: &random)
        for op in batch { replicas[index].receive(op, counts: &counts) }
    }

    private mutating func edit(at index: Int) {
        var replica = replicas[index]
        guard var transaction = try? replica.clock.beginTransaction() else { return }
        let edits = Int.random(in: 1...3, using: &random)
        for _ in 0..<edits {
            do {
                try makeEdit(on: replica, into: &transaction)
            } catch {
                preconditionFailure("scenario \(seed) made an invalid edit: \(error)")
            }
            // Each edit sees the previous ones of its transaction.
            for op in transaction.ops where !replica.delivered.contains(op.id) {
                replica.receive(op, counts: &counts)
                if case .append(let stroke, let start, let samples) = op.action {
                    replica.strokeEnds[stroke] = max(replica.strokeEnds[stroke] ?? 0, start + UInt32(samples.count))
                }
                if case .create(.stroke, _) = op.action { replica.strokeEnds[op.entity] = 0 }
            }
        }
        let ops = replica.clock.commit(transaction)
        replicas[index] = replica
        log += ops
        counts.ops += ops.count
        for other in replicas.indices where other != index {
            replicas[other].inbox += ops
        }
    }

    private mutating func makeEdit(on replica: ScenarioReplica, into transaction: inout TransactionBuilder) throws {
        let document = replica.document
        let known = document.knownEntities
        let visible = document.zOrder
        let deleted = known.filter { document.isDeleted($0) }
        let ownStrokes = replica.strokeEnds.keys.filter { document[$0] != nil }.sorted()
        let roll = known.isEmpty ? 0 : Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<18:
            let placement = try document.zPlacement(
                above: visible.randomElement(using: &random), jitter: random.next() % 8)
            try writeRekeys(placement, into: &transaction)
            let kind = EntityKind.allCases.randomElement(using: &random) ?? .emoji
            try transaction.create(
                kind, contentFields(for: kind) + [.x(randomNumber()), .y(randomNumber()), .zKey(placement.key)])
            counts.creates += 1
        case 18..<22:
            // The document's own fields: its background.
            guard let field = FieldID.document.sorted().randomElement(using: &random) else { return }
            try transaction.set(randomValue(for: field), of: .document)
            counts.sets += 1
        case 22..<58:
            guard let entity = known.randomElement(using: &random) else { return }
            let kind = document.kind(of: entity)
            let candidates = kind.map { Array($0.fields.subtracting([.zKey])) } ?? [.x, .y, .scale, .rotation, .color]
            guard let field = candidates.randomElement(using: &random) else { return }
            try transaction.set(randomValue(for: field), of: entity)
            counts.sets += 1
        case 58..<68:
            guard let entity = known.randomElement(using: &random) else { return }
            try transaction.delete(entity)
            counts.deletes += 1
        case 68..<76:
            guard let entity = (deleted.isEmpty ? known : deleted).randomElement(using: &random) else { return }
            try transaction.restore(entity)
            counts.restores += 1
        case 76..<86:
            guard let entity = visible.randomElement(using: &random) else { return }
            let placement = try document.zPlacement(
                above: visible.filter { $0 != entity }.randomElement(using: &random), jitter: random.next() % 8)
            try writeRekeys(placement, into: &transaction)
            try transaction.set(.zKey(placement.key), of: entity)
            counts.zMoves += 1
        default:
            guard let stroke = ownStrokes.randomElement(using: &random), let end = replica.strokeEnds[stroke] else {
                return
            }
            let samples = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                sample(randomNumber(), randomNumber(), Float(Int.random(in: 0...100, using: &random)) / 10)
            }
            if end > 0, random.chance(0.15) {
                // Same start index again with other samples: the server refuses
                // this, but replicas must still settle it the same way.
                try transaction.append(samples, to: stroke, at: UInt32.random(in: 0..<end, using: &random))
                counts.conflictingAppends += 1
            } else if random.chance(0.1) {
                // Leave a gap: this chunk waits for samples never sent.
                try transaction.append(samples, to: stroke, at: end + 1)
            } else {
                try transaction.append(samples, to: stroke, at: end)
            }
            counts.appends += 1
        }
    }

    private mutating func writeRekeys(_ placement: ZPlacement, into transaction: inout TransactionBuilder) throws {
        for rekey in placement.rekeys {
            try transaction.set(.zKey(rekey.key), of: rekey.entity)
            counts.rekeys += 1
        }
    }

    private mutating func randomNumber() -> Float {
        // A small set of values makes equal values (and -0.0) common.
        [0, -0.0, 1, 2.5, -3, 100, 1e6, 0.1].randomElement(using: &random) ?? 0
    }

    private mutating func contentFields(for kind: EntityKind) -> [Field] {
        switch kind {
        case .emoji: [.character(["⭐️", "😀", "👨‍👩‍👧‍👦"].randomElement(using: &random) ?? "⭐️"), .size(40)]
        case .shape: [.shape(ShapeKind.allCases.randomElement(using: &random) ?? .star), .width(80), .height(60)]
        case .text: [.text("hello"), .font("Helvetica"), .size(24)]
        case .stroke: [.tool(StrokeTool.allCases.randomElement(using: &random) ?? .pen), .weight(3)]
        case .image: [.blob(BlobHash(words: (1, 2, 3, random.next()))), .width(640), .height(480)]
        }
    }

    private mutating func randomValue(for field: FieldID) -> Field {
        switch field {
        case .x: .x(randomNumber())
        case .y: .y(randomNumber())
        case .scale: .scale(Float(Int.random(in: 1...8, using: &random)) / 4)
        case .rotation: .rotation(randomNumber())
        case .zKey: .zKey(ZKey.first)
        case .color: .color(Color(rawValue: UInt32.random(in: 0...3, using: &random) * 0x4040_4040))
        case .fill: .fill(Color(rawValue: UInt32.random(in: 0...3, using: &random) * 0x1111_1111))
        case .weight: .weight(Float(Int.random(in: 1...10, using: &random)))
        case .size: .size(Float(Int.random(in: 8...64, using: &random)))
        case .width: .width(randomNumber())
        case .height: .height(randomNumber())
        case .character: .character(["🎨", "✏️", "🦊"].randomElement(using: &random) ?? "🎨")
        case .text: .text(["hi", "hello", "", "collaboration"].randomElement(using: &random) ?? "")
        case .font: .font(["Helvetica", "Menlo", "Georgia"].randomElement(using: &random) ?? "Menlo")
        case .textStyle: .textStyle(TextStyle.allCases.randomElement(using: &random) ?? .regular)
        case .alignment: .alignment(TextAlignment.allCases.randomElement(using: &random) ?? .left)
        case .shape: .shape(ShapeKind.allCases.randomElement(using: &random) ?? .ellipse)
        case .tool: .tool(StrokeTool.allCases.randomElement(using: &random) ?? .marker)
        case .endCap: .endCap(EndCap.allCases.randomElement(using: &random) ?? .arrow)
        case .blob: .blob(BlobHash(words: (9, 9, 9, random.next() % 4)))
        case .fit: .fit(BackgroundFit.allCases.randomElement(using: &random) ?? .cover)
        case .erases:
            // Few distinct lists, so two writes with one value are common;
            // -0 too, which must settle as 0.
            .erases(
                (0..<Int.random(in: 0...2, using: &random)).map { index in
                    ErasedEntity(
                        entity: EntityID(OpID(counter: UInt64(index + 1), replica: ReplicaID(rawValue: 7))),
                        transform: Transform(x: randomNumber(), y: randomNumber()))
                })
        }
    }
}
