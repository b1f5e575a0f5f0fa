import EaselModel
import EaselProtocol
import EaselTestSupport

/// Random valid messages for round-trip properties: every message type, op
/// kind and field, with values across their whole ranges.
struct RandomMessages {
    var random: SeededRandom
    private let replicas = [alice, bob, carol, ReplicaID(rawValue: .max)]

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    mutating func message() -> Message {
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            .hello(
                Hello(
                    protocolVersion: UInt32.random(in: 1...3, using: &random),
                    document: ValidVectors.document("doc-\(int(1000))"),
                    replica: replica(), token: random.chance(0.5) ? string(maxBytes: 200) : nil,
                    since: random.chance(0.5) ? ResumePoint(position: uint64(), epoch: Epoch(rawValue: uint64())) : nil,
                    user: user()))
        case 1:
            .welcome(
                Welcome(
                    epoch: Epoch(rawValue: uint64()), position: uint64(),
                    content: random.chance(0.5) ? .snapshot(ops(count: int(20))) : .tail(positioned(count: int(20))),
                    more: random.chance(0.5), peers: (0..<int(3)).map { _ in presence() }))
        case 2: .push(Push(batch: uint64(), ops: ops(count: 1 + int(30))))
        case 3: .ack(Ack(batch: uint64(), first: uint64(), count: UInt32.random(in: 0...UInt32.max, using: &random)))
        case 4: .ops(positioned(count: int(30)))
        case 5: .presence(presence())
        case 6: .leave(replica())
        case 7:
            .error(
                ErrorMessage(
                    code: ErrorCode(rawValue: UInt16.random(in: 0...UInt16.max, using: &random)),
                    fatal: random.chance(0.5),
                    batch: random.chance(0.5) ? uint64() : nil, message: string(maxBytes: 100)))
        case 8: .ping(nonce: uint64())
        default: .pong(nonce: uint64())
        }
    }

    mutating func ops(count: Int) -> [Op] {
        var counter = UInt64.random(in: 1...1_000_000, using: &random)
        var transaction = TransactionID(OpID(counter: counter, replica: alice))
        var replica = alice
        return (0..<count).map { _ in
            if random.chance(0.2) { replica = self.replica() }
            counter = random.chance(0.8) ? counter + 1 : UInt64.random(in: 1...UInt64.max / 2, using: &random)
            let id = OpID(counter: counter, replica: replica)
            if transaction.first.replica != replica || transaction.first.counter > counter || random.chance(0.3) {
                transaction = TransactionID(
                    OpID(
                        counter: random.chance(0.5) ? counter : UInt64.random(in: 1...counter, using: &random),
                        replica: replica))
            }
            return Op(id: id, transaction: transaction, action: action(id: id))
        }
    }

    private mutating func positioned(count: Int) -> [PositionedOp] {
        var position = UInt64.random(in: 0...1_000_000, using: &random)
        return ops(count: count).map { op in
            position += UInt64.random(in: 1...(random.chance(0.8) ? 1 : 100_000), using: &random)
            return PositionedOp(position: position, op: op)
        }
    }

    private mutating func action(id: OpID) -> Op.Action {
        switch int(8) {
        case 0:
            let kind = EntityKind.allCases.randomElement(using: &random) ?? .emoji
            let fields = kind.fields.sorted().filter { _ in random.chance(0.5) }.map { field(of: $0) }
            return .create(kind, fields)
        case 1: return .set(entity(), field(of: FieldID.allCases.randomElement(using: &random) ?? .x))
        case 2: return .delete(entity())
        case 3: return .restore(entity())
        case 4: return .insertText(entity(), insertion(id: id))
        case 5:
            let runs = (0..<1 + int(5)).map { _ in CharacterRun(first: characterID(), count: 1 + int(100)) }
            return .deleteText(entity(), runs)
        case 6: return .textSnapshot(entity(), textSnapshot())
        default:
            let samples = (0..<1 + int(20)).map { _ in
                StrokeSample(x: coordinate(), y: coordinate(), time: float(), force: random.chance(0.5) ? float() : nil)
            }
            return .append(entity(), start: UInt32.random(in: 0...1_000_000, using: &random), samples: samples)
        }
    }

    private mutating func characterID() -> OpID {
        OpID(counter: UInt64.random(in: 1...(random.chance(0.5) ? 1_000 : UInt64.max / 2), using: &random), replica: replica())
    }

    /// Characters, now and then past the BMP, and an origin not typed
    /// after them.
    private mutating func scalars(_ count: Int) -> [Unicode.Scalar] {
        (0..<count).map { _ in random.chance(0.9) ? Unicode.Scalar(UInt8(97 + int(26))) : "🎨" }
    }

    private mutating func origin(before first: OpID) -> OpID? {
        guard random.chance(0.7) else { return nil }
        let origin = characterID()
        return origin.replica == first.replica && origin.counter >= first.counter ? nil : origin
    }

    private mutating func insertion(id: OpID) -> TextInsertion {
        let typesOn = id.counter > 1 && random.chance(0.3)
        return TextInsertion(
            originLeft: typesOn ? OpID(counter: id.counter - 1, replica: id.replica) : origin(before: id),
            originRight: origin(before: id), scalars: scalars(1 + int(20)))
    }

    /// Runs that go on from one another, type on, take the origins of the
    /// runs beside them, or are anywhere: every way the binary form has.
    private mutating func textSnapshot() -> TextSnapshot {
        var runs: [TextSnapshot.Run] = []
        for _ in 0..<1 + int(12) {
            var first = characterID()
            if let previous = runs.last, random.chance(0.3) { first = previous.end }
            var run = TextSnapshot.Run(
                first: first, count: 1 + int(50), originLeft: origin(before: first), originRight: origin(before: first),
                isDeleted: random.chance(0.3))
            if first.counter > 1, random.chance(0.3) { run.originLeft = OpID(counter: first.counter - 1, replica: first.replica) }
            if let previous = runs.last, random.chance(0.3) {
                run.originLeft = previous.first.advanced(by: previous.count - 1)
                if run.originLeft.map({ $0.replica == first.replica && $0.counter >= first.counter }) == true { run.originLeft = nil }
            }
            if let previous = runs.last, random.chance(0.3) {
                run.originRight = previous.originRight
                if run.originRight.map({ $0.replica == first.replica && $0.counter >= first.counter }) == true { run.originRight = nil }
            }
            runs.append(run)
        }
        // A right origin that is the next run's first.
        for at in runs.indices.dropLast() where random.chance(0.3) {
            let next = runs[at + 1].first
            if next.replica != runs[at].first.replica || next.counter < runs[at].first.counter { runs[at].originRight = next }
        }
        return TextSnapshot(runs: runs, scalars: scalars(runs.reduce(0) { $0 + ($1.isDeleted ? 0 : $1.count) }))
    }

    private mutating func field(of id: FieldID) -> Field {
        switch id {
        case .x: .x(coordinate())
        case .y: .y(coordinate())
        case .scale: .scale(float())
        case .rotation: .rotation(float())
        case .zKey: .zKey(random.chance(0.5) ? key("a\(int(10))") : key("Zz\(int(9) + 1)"))
        case .color: .color(Color(rawValue: UInt32.random(in: 0...UInt32.max, using: &random)))
        case .fill: .fill(Color(rawValue: UInt32.random(in: 0...UInt32.max, using: &random)))
        case .weight: .weight(float())
        case .size: .size(float())
        case .width: .width(float())
        case .height: .height(float())
        case .character: .character(["😀", "⭐️", "👩‍👩‍👧", "🇺🇦", "a"].randomElement(using: &random) ?? "a")
        case .text: .text(string(maxBytes: 300))
        case .font: .font(string(maxBytes: 40))
        case .textStyle: .textStyle(TextStyle.allCases.randomElement(using: &random) ?? .regular)
        case .alignment: .alignment(TextAlignment.allCases.randomElement(using: &random) ?? .left)
        case .shape: .shape(ShapeKind.allCases.randomElement(using: &random) ?? .star)
        case .tool: .tool(StrokeTool.allCases.randomElement(using: &random) ?? .pen)
        case .endCap: .endCap(EndCap.allCases.randomElement(using: &random) ?? .round)
        case .blob: .blob(BlobHash(words: (uint64(), uint64(), uint64(), uint64())))
        case .fit: .fit(BackgroundFit.allCases.randomElement(using: &random) ?? .cover)
        case .erases:
            // Distinct entities: a list naming one twice is refused.
            .erases(
                Array(Set((0..<int(6)).map { _ in entity() })).sorted().map {
                    ErasedEntity(
                        entity: $0, transform: Transform(x: coordinate(), y: coordinate(), scale: float(), rotation: float()))
                })
        }
    }

    private mutating func presence() -> Presence {
        let entities = (0..<int(4)).map { _ in entity() }
        let gesture: GesturePreview? =
            switch int(5) {
            case 0: .moving(entities, by: Vector(dx: float(), dy: float()))
            case 1: .scaling(entities, by: float())
            case 2: .rotating(entities, by: float())
            case 3:
                .drawing(
                    tool: StrokeTool.allCases.randomElement(using: &random) ?? .pen,
                    color: Color(rawValue: UInt32.random(in: 0...UInt32.max, using: &random)), weight: float(),
                    points: (0..<int(10)).map { _ in Point(x: float(), y: float()) })
            default: nil
            }
        return Presence(
            replica: replica(), user: user(), cursor: random.chance(0.5) ? Point(x: float(), y: float()) : nil,
            viewport: random.chance(0.5) ? VisibleArea(x: float(), y: float(), width: float(), height: float()) : nil,
            selection: entities, gesture: gesture, idle: random.chance(0.3),
            state: random.chance(0.5) ? PresenceState(position: uint64(), hash: StateHash(rawValue: uint64())) : nil)
    }

    private mutating func user() -> UserInfo {
        UserInfo(
            name: string(maxBytes: 60), initials: string(maxBytes: 12),
            color: Color(rawValue: UInt32.random(in: 0...UInt32.max, using: &random)))
    }

    private mutating func entity() -> EntityID {
        EntityID(OpID(counter: UInt64.random(in: 1...UInt64.max, using: &random), replica: replica()))
    }

    private mutating func replica() -> ReplicaID {
        replicas.randomElement(using: &random) ?? alice
    }

    /// A position an op may write: finite floats within the canvas's edge,
    /// the edges themselves included.
    private mutating func coordinate() -> Float {
        let value = float()
        guard abs(value) > ModelLimits.coordinate else { return value }
        let edge = value < 0 ? -ModelLimits.coordinate : ModelLimits.coordinate
        return random.chance(0.5) ? edge : value.truncatingRemainder(dividingBy: ModelLimits.coordinate)
    }

    /// Finite floats of every magnitude, subnormals and signed zeros included.
    private mutating func float() -> Float {
        switch int(4) {
        case 0: return Float(Int.random(in: -5000...5000, using: &random)) / 4
        case 1:
            return [0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.ulpOfOne].randomElement(using: &random)
                ?? 0
        default:
            let bits = UInt32.random(in: 0...UInt32.max, using: &random)
            let value = Float(bitPattern: bits)
            return value.isFinite ? value : 1
        }
    }

    /// Strings with quotes, escapes, controls and multi-byte characters.
    private mutating func string(maxBytes: Int) -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "\n", "\u{1}", "é", "漢", "🎨", "\u{7F}", "/"]
        var text = ""
        while true {
            let piece = pieces.randomElement(using: &random) ?? "a"
            guard text.utf8.count + piece.utf8.count <= maxBytes, random.chance(0.9) else { return text }
            text += piece
        }
    }

    private mutating func uint64() -> UInt64 {
        random.chance(0.5) ? UInt64.random(in: 0...1000, using: &random) : random.next()
    }

    private mutating func int(_ bound: Int) -> Int {
        Int.random(in: 0..<max(bound, 1), using: &random)
    }
}
