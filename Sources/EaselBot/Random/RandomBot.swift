import EaselBotScript
import EaselModel
import EaselSync
import Foundation

/// A bot that edits at random, through the same gestures and commands as a
/// script: it picks an action by the mix's weights, aims it at what is on
/// its screen, does it, and thinks for a while (exponentially distributed,
/// so a crowd of bots arrives like people do).
///
/// Every choice comes from its seed and the document it sees, so one bot
/// with the same seed, starting from the same document, makes the same
/// edits.
public struct RandomBot: BotBehaviour {
    public var mix: RandomMix
    /// The mean pause between actions, in milliseconds.
    public var meanThinkTime: Double
    /// When to stop; nil runs until the host stops it.
    public var deadline: Timestamp?
    /// With this many entities, the bot deletes instead of placing or
    /// duplicating, so a long run keeps a bounded document.
    public var entityLimit = 300
    /// The image files an `image` action places, at their pixel size.
    public var imageFiles: [String] = []
    /// Every action taken, when `keepsHistory`; for tests and traces.
    public private(set) var history: [Action] = []
    public var keepsHistory = false
    /// Actions taken, and those the editor refused (a selection deleted by
    /// someone else a moment ago, say): refusals are part of co-editing,
    /// not failures.
    public private(set) var actionCount = 0
    public private(set) var refusedCount = 0

    private var generator: SplitMix64
    private let canvas = (width: Float(1000), height: Float(800))

    public init(
        seed: UInt64, mix: RandomMix = .standard, actionsPerSecond: Double = 2, until deadline: Timestamp? = nil
    ) {
        generator = SplitMix64(seed: seed)
        self.mix = mix
        meanThinkTime = 1000 / max(actionsPerSecond, 0.001)
        self.deadline = deadline
    }

    /// Bot `index`'s seed in a fleet seeded with `seed`: well apart from
    /// its neighbours', and the same on every run.
    public static func seed(forBot index: Int, of seed: UInt64) -> UInt64 {
        var generator = SplitMix64(seed: seed ^ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15)
        return generator.next()
    }

    public mutating func advance(_ client: inout SyncClient, at now: Timestamp) throws(ScriptError) -> BotStep {
        if let deadline, now >= deadline { return .finished }
        guard mix.total > 0 else { return .finished }
        var kind = mix.kind(at: below(mix.total))
        if kind == .offline {
            return .offline(reconnectAt: now + Int64(int(in: 500...3000)))
        }
        if kind == .image, imageFiles.isEmpty { kind = .place }
        if kind == .place || kind == .duplicate || kind == .image, client.editor.document.visibleCount >= entityLimit {
            kind = .delete
        }
        if kind == .image {
            actionCount += 1
            let place = ImageUse.place(at: anywhere(), size: nil)
            return .image(ImageStep(file: pick(imageFiles), use: place, location: SourceLocation(line: 0, column: 0)))
        }
        for action in actions(for: kind, in: client.editor) {
            actionCount += 1
            if keepsHistory { history.append(action) }
            do throws(ModelError) {
                try client.carryOut(action, at: now)
            } catch {
                refusedCount += 1
                break
            }
        }
        return .wait(until: now + thinkTime())
    }

    private mutating func thinkTime() -> Int64 {
        // Exponential: -mean × ln(U), U in (0, 1].
        let unit = Double(generator.next() >> 11 + 1) / Double(1 << 53)
        return Int64((-meanThinkTime * log(unit)).rounded())
    }

    // MARK: Choosing actions

    /// The gestures and commands for one kind of action: a tap to select
    /// something first when the action needs a selection.
    private mutating func actions(for kind: RandomMix.Kind, in editor: Editor) -> [Action] {
        switch kind {
        case .place: return [.command(.place(newEntity(), at: anywhere()))]
        case .tap: return [.tap(anywhere())]
        case .draw: return drawing()
        case .undo: return editor.canUndo ? [.command(.undo)] : []
        case .redo: return editor.canRedo ? [.command(.redo)] : []
        case .clear: return [.command(.clearAll)]
        case .type: return typing(in: editor)
        case .offline: return []
        default: break
        }
        var actions: [Action] = []
        guard let target = selectedTarget(in: editor, selecting: &actions) else { return [] }
        switch kind {
        case .drag:
            let by = Vector(dx: float(in: -120...120), dy: float(in: -120...120))
            actions.append(.drag(from: target.point, by: by, steps: int(in: 2...6)))
        case .pinch:
            actions.append(
                .pinch(
                    around: target.point, scale: float(in: 0.7...1.4), steps: int(in: 2...4)))
        case .rotate:
            actions.append(.rotate(angle: float(in: -0.8...0.8), steps: int(in: 2...4)))
        case .style: actions.append(.command(.setStyle(styleChange())))
        case .duplicate: actions.append(.command(.duplicateSelection))
        case .delete: actions.append(.command(.deleteSelection))
        case .order:
            let commands: [Command] = [.bringForward, .sendBackward, .bringToFront, .sendToBack]
            actions.append(.command(commands[below(commands.count)]))
        default: break
        }
        return actions
    }

    /// An entity to act on: one already selected, else a tap on a random
    /// entity (added to `actions`); nil on an empty document.
    private mutating func selectedTarget(in editor: Editor, selecting actions: inout [Action]) -> (
        id: EntityID, point: Point
    )? {
        let viewport = editor.state.viewport
        let selected = editor.state.selection.sorted().filter { editor.document.isVisible($0) }
        if let id = selected.first, let entity = editor.document[id] {
            return (id, viewport.screenPoint(fromDocument: Point(x: entity.transform.x, y: entity.transform.y)))
        }
        let visible = editor.document.zOrder
        guard !visible.isEmpty,
            let entity = editor.document[visible[below(visible.count)]]
        else { return nil }
        let point = viewport.screenPoint(fromDocument: Point(x: entity.transform.x, y: entity.transform.y))
        actions.append(.tap(point))
        return (entity.id, point)
    }

    /// Typing needs exactly one text entity selected: selects a random one
    /// on an empty selection, clears any other selection first (a tap on
    /// empty canvas), and gives up on a document without text.
    /// Typing into a text as people do: words inserted at some place in
    /// it, or a few characters deleted, by character ops, so bots sharing
    /// texts type into them at once.
    private mutating func typing(in editor: Editor) -> [Action] {
        var actions: [Action] = []
        let selection = editor.state.selection
        let target: EntityID
        if selection.count == 1, let id = selection.first, editor.document.kind(of: id) == .text {
            target = id
        } else {
            let texts = editor.document.zOrder.filter { editor.document.kind(of: $0) == .text }
            guard !texts.isEmpty, let text = editor.document[texts[below(texts.count)]] else {
                let new = NewEntity.text(words(int(in: 1...3)), font: pick(Self.fonts), size: float(in: 12...64))
                return [.command(.place(new, at: anywhere()))]
            }
            if !selection.isEmpty { actions.append(.command(.clearSelection)) }
            let point = editor.state.viewport.screenPoint(
                fromDocument: Point(x: text.transform.x, y: text.transform.y))
            actions.append(.tap(point))
            target = text.id
        }
        let count = editor.document.textSequenceForEditing(of: target).count
        if count > 0, below(3) == 0 {
            let from = below(count)
            actions.append(.deleteCharacters(from: from, to: min(count, from + int(in: 1...6))))
        } else {
            actions.append(.typeInto(" " + words(int(in: 1...3)), after: below(count + 1), perSecond: nil))
        }
        return actions
    }

    private mutating func drawing() -> [Action] {
        var actions: [Action] = []
        if below(4) == 0 {
            let tools: [StrokeTool] = [.pen, .brush, .marker, .neon, .pencil, .pen, .brush, .eraser]
            let settings = DrawingSettings(
                tool: tools[below(tools.count)], color: color(),
                weight: float(in: 1...12))
            actions.append(.command(.setDrawing(settings)))
        }
        var point = anywhere()
        var points = [point]
        for _ in 0..<int(in: 2...12) {
            point = Point(x: point.x + float(in: -40...40), y: point.y + float(in: -40...40))
            points.append(point)
        }
        actions.append(.draw(through: points, pace: .over(seconds: float(in: 0.1...0.8)), pressure: nil))
        return actions
    }

    // MARK: Random values

    private static let emoji = ["🍎", "🍐", "🍋", "⭐", "🌙", "🐟", "🌵", "🎈", "🚲", "☕"]
    private static let fonts = ["Helvetica", "Georgia", "Menlo", "Avenir"]
    private static let vocabulary = ["sketch", "idea", "todo", "canvas", "hello", "draft", "blue", "plan"]

    private mutating func newEntity() -> NewEntity {
        switch below(6) {
        case 0, 1, 2:
            return .emoji(pick(Self.emoji), size: float(in: 24...96))
        case 3, 4:
            let shape = ShapeKind.allCases[below(ShapeKind.allCases.count)]
            return .shape(shape, width: float(in: 40...240), height: float(in: 40...240))
        default:
            return .text(
                words(int(in: 1...3)), font: pick(Self.fonts), size: float(in: 12...64))
        }
    }

    private mutating func styleChange() -> StyleChange {
        switch below(7) {
        case 0: .color(color())
        case 1: .fill(color())
        case 2: .weight(float(in: 1...12))
        case 3: .font(pick(Self.fonts))
        case 4: .size(float(in: 12...96))
        case 5: .textStyle(TextStyle.allCases[below(TextStyle.allCases.count)])
        default: .alignment(TextAlignment.allCases[below(TextAlignment.allCases.count)])
        }
    }

    private mutating func words(_ count: Int) -> String {
        (0..<count).map { _ in pick(Self.vocabulary) }.joined(separator: " ")
    }

    private mutating func color() -> Color {
        Color(rawValue: UInt32(truncatingIfNeeded: generator.next()) | 0xFF)
    }

    private mutating func anywhere() -> Point {
        Point(x: float(in: 0...canvas.width), y: float(in: 0...canvas.height))
    }

    // The standard library's random(in:using:) may change how it maps a
    // generator's bits between Swift versions; these never do, so a seed
    // means the same edits on every toolchain.

    /// 0..<count, by the multiply-high method (its bias is far below
    /// anything a bot could notice).
    private mutating func below(_ count: Int) -> Int {
        Int(generator.next().multipliedFullWidth(by: UInt64(count)).high)
    }

    private mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    private mutating func float(in range: ClosedRange<Float>) -> Float {
        let unit = Float(generator.next() >> 40) / Float(1 << 24)
        let value = range.lowerBound + unit * (range.upperBound - range.lowerBound)
        // Rounded to hundredths: values a script could have written.
        return (value * 100).rounded() / 100
    }

    private mutating func pick(_ choices: [String]) -> String {
        choices[below(choices.count)]
    }
}
