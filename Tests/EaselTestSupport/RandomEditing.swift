import EaselModel

/// One thing a person (or a bot) does to an editor.
public enum EditorInput: Hashable, Sendable {
    case gesture(GestureEvent)
    case command(Command)
}

extension Editor {
    /// Applies a gesture or a command and returns its ops.
    public mutating func apply(_ input: EditorInput) throws(ModelError) -> [Op] {
        switch input {
        case .gesture(let event): try send(event)
        case .command(let command): try perform(command)
        }
    }
}

/// Seeded random gestures and commands that keep to what a person can do:
/// a gesture in flight continues or ends before another begins, and most
/// gestures land on an entity.
public enum RandomEditing {
    /// The next input for an editor, or nil when the dice chose something
    /// that has no target (editing text in a document without any).
    public static func next(for editor: Editor, using random: inout SeededRandom) -> EditorInput? {
        switch editor.state.gesture {
        case .moving?, .panning?:
            return random.chance(0.5)
                ? .gesture(.dragChanged(translation: vector(&random))) : finishing(editor, using: &random)
        case .scaling?, .zooming?, .rotating?:
            return finishing(editor, using: &random)
        case .drawing(let stroke)?:
            let count = Int.random(in: 1...3, using: &random)
            return random.chance(0.6)
                ? .gesture(.drawMoved((0..<count).map { drawPoint(&random, index: Int(stroke.nextIndex) + $0) }))
                : finishing(editor, using: &random)
        case .erasing?, .lassoing?, .shaping?:
            return random.chance(0.6) ? .gesture(.drawMoved([drawPoint(&random, index: 1)])) : finishing(editor, using: &random)
        case nil:
            break
        }
        let point = screenPoint(in: editor, &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<15: return .gesture(.tap(at: point))
        case 15..<30: return .gesture(.dragBegan(at: point))
        case 30..<36: return .gesture(.pinchBegan(around: point))
        case 36..<42: return .gesture(.rotateBegan)
        case 42..<48: return .gesture(.drawBegan(drawPoint(&random, index: 0)))
        case 48..<60: return .command(.place(newEntity(&random), at: point))
        case 60..<64: return .command(.deleteSelection)
        case 64..<68: return .command(.duplicateSelection)
        case 68..<72:
            let commands: [Command] = [.bringForward, .sendBackward, .bringToFront, .sendToBack]
            return .command(commands[Int.random(in: 0..<commands.count, using: &random)])
        case 72..<74: return .command(.clearAll)
        case 74..<80: return .command(.setStyle(style(&random)))
        case 80..<84:
            guard let text = editor.document.entities.first(where: { $0.kind == .text }) else { return nil }
            return .command(.editText(text.id, ["a", "bb", "ccc"].randomElement(using: &random) ?? ""))
        case 84..<94: return .command(.undo)
        default: return .command(.redo)
        }
    }

    /// The event that ends the gesture in flight, if there is one.
    public static func finishing(_ editor: Editor, using random: inout SeededRandom) -> EditorInput? {
        switch editor.state.gesture {
        case .moving?, .panning?: .gesture(.dragEnded(translation: vector(&random)))
        case .scaling?, .zooming?: .gesture(.pinchEnded(scale: [0.5, 1, 1.25, 2].randomElement(using: &random) ?? 1))
        case .rotating?: .gesture(.rotateEnded(angle: [0, 0.5, -1, 3.14].randomElement(using: &random) ?? 0))
        case .drawing?, .erasing?, .lassoing?, .shaping?: .gesture(.drawEnded)
        case nil: nil
        }
    }

    /// Usually the centre of a visible entity, so gestures hit something.
    public static func screenPoint(in editor: Editor, _ random: inout SeededRandom) -> Point {
        let viewport = editor.state.viewport
        if random.chance(0.8), let entity = editor.document.entities.randomElement(using: &random) {
            return viewport.screenPoint(fromDocument: Point(x: entity.transform.x, y: entity.transform.y))
        }
        return Point(
            x: Float(Int.random(in: -50...800, using: &random)), y: Float(Int.random(in: -50...800, using: &random)))
    }

    private static func vector(_ random: inout SeededRandom) -> Vector {
        Vector(dx: Float(Int.random(in: -40...40, using: &random)), dy: Float(Int.random(in: -40...40, using: &random)))
    }

    /// A point of a stroke, `index` samples in: times move forward as a
    /// real pen's do, about 50 samples a second.
    private static func drawPoint(_ random: inout SeededRandom, index: Int) -> DrawPoint {
        DrawPoint(
            location: Point(
                x: Float(Int.random(in: 0...700, using: &random)), y: Float(Int.random(in: 0...700, using: &random))),
            time: Float(index * 20 + Int.random(in: 0..<20, using: &random)) / 1000,
            force: random.chance(0.5) ? 0.5 : nil)
    }

    private static func newEntity(_ random: inout SeededRandom) -> NewEntity {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: .emoji("🦊", size: 40)
        case 1: .shape(ShapeKind.allCases.randomElement(using: &random) ?? .star, width: 60, height: 40)
        case 2: .text("note", font: "Menlo", size: 20)
        default: .image(BlobHash(words: (1, 1, 1, random.next() % 3)), width: 80, height: 60)
        }
    }

    private static func style(_ random: inout SeededRandom) -> StyleChange {
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
