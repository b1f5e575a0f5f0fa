import EaselTestSupport

@testable import EaselModel

/// What the editor scenarios did, summed over a run; the test fails if any
/// count is zero.
struct EditorScenarioCounts: CustomStringConvertible {
    var scenarios = 0
    var ops = 0
    var gesturesCommitted = 0
    var gesturesOverlappingRemoteOps = 0
    var strokesDrawn = 0
    var commands = 0
    var undosWithOps = 0
    var redosWithOps = 0

    mutating func add(_ other: EditorScenarioCounts) {
        scenarios += other.scenarios
        ops += other.ops
        gesturesCommitted += other.gesturesCommitted
        gesturesOverlappingRemoteOps += other.gesturesOverlappingRemoteOps
        strokesDrawn += other.strokesDrawn
        commands += other.commands
        undosWithOps += other.undosWithOps
        redosWithOps += other.redosWithOps
    }

    var named: [(String, Int)] {
        [
            ("scenarios", scenarios), ("ops", ops), ("gestures committed", gesturesCommitted),
            ("gestures overlapping remote ops", gesturesOverlappingRemoteOps), ("strokes drawn", strokesDrawn),
            ("commands", commands), ("undos with ops", undosWithOps), ("redos with ops", redosWithOps),
        ]
    }

    var description: String { named.map { "\($0.0): \($0.1)" }.joined(separator: ", ") }
}

/// Editors that take turns making random gestures and commands (undo and
/// redo included) and receiving random subsets of each other's ops, then
/// receive everything in random orders with duplicates.
struct EditorScenario {
    let seed: UInt64
    private(set) var editors: [Editor]
    private var inboxes: [[Op]]
    private(set) var log: [Op] = []
    private(set) var counts = EditorScenarioCounts(scenarios: 1)
    private var random: SeededRandom

    init(seed: UInt64) {
        self.seed = seed
        var random = SeededRandom(seed: seed)
        let count = Int.random(in: 3...5, using: &random)
        editors = (0..<count).map { _ in Editor(replica: ReplicaID(rawValue: random.next())) }
        inboxes = Array(repeating: [], count: count)
        self.random = random
    }

    mutating func run() throws {
        for _ in 0..<Int.random(in: 30...70, using: &random) {
            let index = Int.random(in: editors.indices, using: &random)
            if random.chance(0.6) {
                try act(at: index)
            } else {
                receiveSome(at: index)
            }
        }
        for index in editors.indices {
            try finishGesture(at: index)
        }
        for index in editors.indices {
            var everything = log + log.filter { _ in random.chance(0.3) }
            everything.shuffle(using: &random)
            editors[index].receive(everything)
        }
    }

    var divergentEditors: [Int] {
        let reference = editors[0].document.canonicalEncoding
        return editors.indices.filter { editors[$0].document.canonicalEncoding != reference }
    }

    private mutating func publish(_ ops: [Op], from index: Int) {
        guard !ops.isEmpty else { return }
        log += ops
        counts.ops += ops.count
        for other in editors.indices where other != index { inboxes[other] += ops }
    }

    private mutating func receiveSome(at index: Int) {
        let batch = inboxes[index].filter { _ in random.chance(0.5) }
        let ids = Set(batch.map(\.id))
        inboxes[index].removeAll { ids.contains($0.id) }
        if editors[index].state.gesture != nil, !batch.isEmpty { counts.gesturesOverlappingRemoteOps += 1 }
        editors[index].receive((batch + batch.filter { _ in random.chance(0.1) }).shuffled(using: &random))
    }

    private mutating func send(_ event: GestureEvent, at index: Int) throws {
        let ops = try editors[index].send(event)
        publish(ops, from: index)
        if !ops.isEmpty, case .drawBegan = event { counts.strokesDrawn += 1 }
        switch event {
        case .dragEnded, .pinchEnded, .rotateEnded: if !ops.isEmpty { counts.gesturesCommitted += 1 }
        default: break
        }
    }

    private mutating func perform(_ command: Command, at index: Int) throws {
        let ops = try editors[index].perform(command)
        publish(ops, from: index)
        counts.commands += 1
        if !ops.isEmpty, command == .undo { counts.undosWithOps += 1 }
        if !ops.isEmpty, command == .redo { counts.redosWithOps += 1 }
    }

    /// Ends whatever gesture is in flight.
    private mutating func finishGesture(at index: Int) throws {
        switch editors[index].state.gesture {
        case .moving?, .panning?: try send(.dragEnded(translation: randomVector()), at: index)
        case .scaling?, .zooming?: try send(.pinchEnded(scale: randomScale()), at: index)
        case .rotating?: try send(.rotateEnded(angle: randomAngle()), at: index)
        case .drawing?: try send(.drawEnded, at: index)
        case nil: break
        }
    }

    private mutating func act(at index: Int) throws {
        let editor = editors[index]
        switch editor.state.gesture {
        case .moving?, .panning?:
            return random.chance(0.5)
                ? try send(.dragChanged(translation: randomVector()), at: index) : try finishGesture(at: index)
        case .scaling?, .zooming?, .rotating?:
            return try finishGesture(at: index)
        case .drawing?:
            return random.chance(0.6)
                ? try send(
                    .drawMoved((0..<Int.random(in: 1...3, using: &random)).map { _ in randomDrawPoint() }), at: index)
                : try finishGesture(at: index)
        case nil:
            break
        }
        let point = randomScreenPoint(in: editor)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<15: try send(.tap(at: point), at: index)
        case 15..<30: try send(.dragBegan(at: point), at: index)
        case 30..<36: try send(.pinchBegan(around: point), at: index)
        case 36..<42: try send(.rotateBegan, at: index)
        case 42..<48: try send(.drawBegan(randomDrawPoint()), at: index)
        case 48..<60: try perform(.place(randomNewEntity(), at: point), at: index)
        case 60..<64: try perform(.deleteSelection, at: index)
        case 64..<68: try perform(.duplicateSelection, at: index)
        case 68..<72: try perform(random.chance(0.5) ? .bringForward : .sendBackward, at: index)
        case 72..<74: try perform(.clearAll, at: index)
        case 74..<80: try perform(.setStyle(randomStyle()), at: index)
        case 80..<84:
            if let text = editor.document.entities.first(where: { $0.kind == .text }) {
                try perform(.editText(text.id, ["a", "bb", "ccc"].randomElement(using: &random) ?? ""), at: index)
            }
        case 84..<94: try perform(.undo, at: index)
        default: try perform(.redo, at: index)
        }
    }

    /// Usually the centre of a visible entity, so gestures hit something.
    private mutating func randomScreenPoint(in editor: Editor) -> Point {
        let viewport = editor.state.viewport
        if random.chance(0.8), let entity = editor.document.entities.randomElement(using: &random) {
            return viewport.screenPoint(fromDocument: Point(x: entity.transform.x, y: entity.transform.y))
        }
        return Point(
            x: Float(Int.random(in: -50...800, using: &random)), y: Float(Int.random(in: -50...800, using: &random)))
    }

    private mutating func randomVector() -> Vector {
        Vector(dx: Float(Int.random(in: -40...40, using: &random)), dy: Float(Int.random(in: -40...40, using: &random)))
    }

    private mutating func randomScale() -> Float { [0.5, 1, 1.25, 2].randomElement(using: &random) ?? 1 }
    private mutating func randomAngle() -> Float { [0, 0.5, -1, 3.14].randomElement(using: &random) ?? 0 }

    private mutating func randomDrawPoint() -> DrawPoint {
        DrawPoint(
            location: Point(
                x: Float(Int.random(in: 0...700, using: &random)), y: Float(Int.random(in: 0...700, using: &random))),
            time: Float(Int.random(in: 0...100, using: &random)) / 50, force: random.chance(0.5) ? 0.5 : nil)
    }

    private mutating func randomNewEntity() -> NewEntity {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: .emoji("🦊", size: 40)
        case 1: .shape(ShapeKind.allCases.randomElement(using: &random) ?? .star, width: 60, height: 40)
        case 2: .text("note", font: "Menlo", size: 20)
        default: .image(BlobHash(words: (1, 1, 1, random.next() % 3)), width: 80, height: 60)
        }
    }

    private mutating func randomStyle() -> StyleChange {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: .color(Color(rawValue: UInt32.random(in: 0...3, using: &random) * 0x4040_4040))
        case 1: .fill(.white)
        case 2: .weight(Float(Int.random(in: 1...9, using: &random)))
        case 3: .font("Georgia")
        case 4: .size(Float(Int.random(in: 10...60, using: &random)))
        case 5: .textStyle(TextStyle.allCases.randomElement(using: &random) ?? .framed)
        default: .alignment(TextAlignment.allCases.randomElement(using: &random) ?? .right)
        }
    }
}
