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
    var rebases = 0
    var undosAfterARebase = 0

    mutating func add(_ other: EditorScenarioCounts) {
        scenarios += other.scenarios
        ops += other.ops
        gesturesCommitted += other.gesturesCommitted
        gesturesOverlappingRemoteOps += other.gesturesOverlappingRemoteOps
        strokesDrawn += other.strokesDrawn
        commands += other.commands
        undosWithOps += other.undosWithOps
        redosWithOps += other.redosWithOps
        rebases += other.rebases
        undosAfterARebase += other.undosAfterARebase
    }

    var named: [(String, Int)] {
        [
            ("scenarios", scenarios), ("ops", ops), ("gestures committed", gesturesCommitted),
            ("gestures overlapping remote ops", gesturesOverlappingRemoteOps), ("strokes drawn", strokesDrawn),
            ("commands", commands), ("undos with ops", undosWithOps), ("redos with ops", redosWithOps),
            ("snapshot rebases", rebases), ("undos or redos with ops after a rebase", undosAfterARebase),
        ]
    }

    var description: String { named.map { "\($0.0): \($0.1)" }.joined(separator: ", ") }
}

/// Editors that take turns making random gestures and commands (undo and
/// redo included), receiving random subsets of each other's ops, and now
/// and then rebasing onto a snapshot of everything published (as a client
/// does after compaction or an epoch change); then they receive everything
/// in random orders with duplicates.
///
/// Every undo and redo is checked as it happens: it may only write
/// registers this editor's own writes hold, never one another replica
/// wrote later (`clobbers` lists any that did).
struct EditorScenario {
    let seed: UInt64
    private(set) var editors: [Editor]
    private var inboxes: [[Op]]
    private(set) var log: [Op] = []
    private(set) var counts = EditorScenarioCounts(scenarios: 1)
    private(set) var clobbers: [String] = []
    private var rebased: Set<Int> = []
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
            } else if random.chance(0.25) {
                rebase(at: index)
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

    /// The editor rebuilds from a snapshot of everything published, as
    /// after a compaction: what it had not received arrives only this way.
    private mutating func rebase(at index: Int) {
        var snapshot = Document()
        for op in Document(applying: log).snapshotOps.shuffled(using: &random) { snapshot.apply(op) }
        editors[index].rebase(onto: snapshot, reapplying: [])
        inboxes[index] = []
        rebased.insert(index)
        counts.rebases += 1
    }

    private mutating func apply(_ input: EditorInput, at index: Int) throws {
        let before = editors[index].document
        let ops = try editors[index].apply(input)
        if input == .command(.undo) || input == .command(.redo) {
            checkNothingClobbered(by: ops, before: before, at: index)
            if !ops.isEmpty, rebased.contains(index) { counts.undosAfterARebase += 1 }
        }
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

    /// Undo and redo restore only registers whose latest write is this
    /// editor's own: a register another replica holds was written after
    /// the step (it beat the step's write), and must be left alone.
    private mutating func checkNothingClobbered(by ops: [Op], before document: Document, at index: Int) {
        let replica = editors[index].replica
        for op in ops {
            let holder: OpID?
            switch op.action {
            case .set(let entity, let field): holder = document.register(field.id, of: entity)?.stamp
            case .delete(let entity), .restore(let entity): holder = document.aliveRegister(of: entity)?.stamp
            case .create, .append, .insertText, .deleteText, .textSnapshot: holder = nil
            }
            if let holder, holder.replica != replica {
                clobbers.append("\(op.id) overwrote \(holder), another replica's later write, of \(op.entity)")
            }
        }
    }

    /// Ends whatever gesture is in flight.
    private mutating func finishGesture(at index: Int) throws {
        if let input = RandomEditing.finishing(editors[index], using: &random) { try apply(input, at: index) }
    }

    private mutating func act(at index: Int) throws {
        // An undo right after a rebase is what a rebase puts at risk: try it often.
        if rebased.contains(index), editors[index].state.gesture == nil, random.chance(0.3) {
            return try apply(.command(.undo), at: index)
        }
        if let input = RandomEditing.next(for: editors[index], using: &random) { try apply(input, at: index) }
    }
}
