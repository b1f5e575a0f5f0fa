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

    private mutating func apply(_ input: EditorInput, at index: Int) throws {
        let ops = try editors[index].apply(input)
        publish(ops, from: index)
        switch input {
        case .gesture(let event):
            if !ops.isEmpty, case .drawBegan = event { counts.strokesDrawn += 1 }
            switch event {
            case .dragEnded, .pinchEnded, .rotateEnded: if !ops.isEmpty { counts.gesturesCommitted += 1 }
            default: break
            }
        case .command(let command):
            counts.commands += 1
            if !ops.isEmpty, command == .undo { counts.undosWithOps += 1 }
            if !ops.isEmpty, command == .redo { counts.redosWithOps += 1 }
        }
    }

    /// Ends whatever gesture is in flight.
    private mutating func finishGesture(at index: Int) throws {
        if let input = RandomEditing.finishing(editors[index], using: &random) { try apply(input, at: index) }
    }

    private mutating func act(at index: Int) throws {
        if let input = RandomEditing.next(for: editors[index], using: &random) { try apply(input, at: index) }
    }
}
