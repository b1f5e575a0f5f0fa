import EaselModel

/// Reads a script (Docs/bots.md) into statements, or the first thing wrong
/// with it, with its line and column. Nothing runs until all of it parses.
public enum ScriptParser {
    public static func parse(_ text: String) throws(ScriptError) -> BotScript {
        // Open `repeat` blocks, innermost last, with the statements so far.
        var blocks: [(times: Int, location: SourceLocation, body: [Statement])] = [
            (1, SourceLocation(line: 0, column: 0), [])
        ]
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            var words = Words(try ScriptLexer.tokens(of: line, lineNumber: number), line: number)
            guard let first = words.peek else { continue }
            let location = SourceLocation(line: number, column: first.column)
            switch first.text {
            case "repeat":
                words.skip()
                let times = try words.integer("a repeat count", in: 1...1_000_000)
                try words.end()
                blocks.append((times, location, []))
            case "end":
                words.skip()
                try words.end()
                guard blocks.count > 1, let block = blocks.popLast() else {
                    throw ScriptError(at: location, "end without a repeat")
                }
                blocks[blocks.count - 1].body.append(
                    Statement(.repeatBlock(times: block.times, body: block.body), at: block.location))
            default:
                let action = try statement(&words)
                try words.end()
                blocks[blocks.count - 1].body.append(Statement(action, at: location))
            }
        }
        if blocks.count > 1, let open = blocks.last {
            throw ScriptError(at: open.location, "this repeat has no end")
        }
        return BotScript(statements: blocks[0].body)
    }

    private static func statement(_ words: inout Words) throws(ScriptError) -> Action {
        let verb = try words.word("a statement")
        switch verb.text {
        case "place": return try place(&words)
        case "tap": return .tap(try words.point())
        case "drag":
            let from = try words.point()
            try words.expect("by")
            let by = try words.point()
            return .drag(from: from, by: Vector(dx: by.x, dy: by.y), steps: try steps(&words))
        case "pinch":
            let around = try words.point()
            try words.expect("to")
            let scale = try words.number("a scale factor", positive: true)
            return .pinch(around: around, scale: scale, steps: try steps(&words))
        case "rotate":
            try words.expect("by")
            let angle = try words.number("an angle in radians")
            return .rotate(angle: angle, steps: try steps(&words))
        case "draw":
            let points = try path(&words)
            var pace = DrawPace.over(seconds: Float(points.count) * 0.02)
            var pressure: Float?
            while true {
                if words.take("over") {
                    pace = .over(seconds: Float(try words.duration()) / 1000)
                } else if words.take("at") {
                    pace = .speed(try words.number("a speed in units a second", positive: true))
                } else if words.take("pressure") {
                    pressure = try words.number("a pressure from 0 to 1")
                } else {
                    break
                }
            }
            let seconds: Float =
                switch pace {
                case .over(let seconds): seconds
                case .speed(let speed): length(of: points) / speed
                }
            try checkDuration(seconds, of: verb, in: words)
            return .draw(through: points, pace: pace, pressure: pressure)
        case "erase":
            let mode = try words.choice("pixels, objects or blur", Self.eraseModes)
            let points = try path(&words)
            var speed: Float = 400
            var weight: Float?
            while true {
                if words.take("at") {
                    speed = try words.number("a speed in units a second", positive: true)
                } else if words.take("weight") {
                    weight = try words.number("a weight", positive: true)
                } else {
                    break
                }
            }
            try checkDuration(length(of: points) / speed, of: verb, in: words)
            return .erase(mode, through: points, speed: speed, weight: weight)
        case "lasso":
            return .lasso(through: try path(&words))
        case "shape":
            let kind = try words.choice("a shape", Self.shapes)
            if words.take("at") { return .shape(kind, from: try words.point(), to: nil) }
            try words.expect("from")
            let from = try words.point()
            try words.expect("to")
            return .shape(kind, from: from, to: try words.point())
        case "type":
            let text = try words.string("the text to type")
            guard words.take("into") else { return .type(text) }
            try words.expect("selected")
            let after = words.take("after") ? try characterCount(&words) : nil
            var perSecond: Float?
            if words.take("at") {
                perSecond = try words.number("keys a second", positive: true)
                try words.expect("chars/s")
            }
            return .typeInto(text, after: after, perSecond: perSecond)
        case "background":
            if words.take("none") { return .command(.setBackground(.noImage)) }
            if words.take("image") {
                let file = try words.string("the image file")
                let fit = words.take("fit") ? try words.choice("contain, cover or stretch", Self.fits) : .contain
                return .image(file: file, use: .background(fit))
            }
            return .command(.setBackground(.color(try words.color())))
        case "set": return .command(.setStyle(try style(&words)))
        case "tool": return try tool(&words)
        case "delete":
            guard words.take("characters") else { return .command(.deleteSelection) }
            let from = try characterCount(&words)
            try words.expect("to")
            let to = try characterCount(&words)
            guard to >= from else { throw ScriptError(at: words.location(of: verb), "characters \(from) to \(to) run backwards") }
            return .deleteCharacters(from: from, to: to)
        case "duplicate": return .command(.duplicateSelection)
        case "forward": return .command(.bringForward)
        case "backward": return .command(.sendBackward)
        case "front": return .command(.bringToFront)
        case "back": return .command(.sendToBack)
        case "undo": return .command(.undo)
        case "redo": return .command(.redo)
        case "clear": return .command(.clearAll)
        case "wait": return .wait(milliseconds: try words.duration())
        case "offline": return .offline(milliseconds: try words.duration())
        case "expect": return .expect(try expectation(&words))
        default:
            throw ScriptError(
                at: words.location(of: verb),
                "unknown statement \(verb.text) (place, tap, drag, pinch, rotate, draw, erase, lasso, shape, type, background, set, tool, delete, duplicate, forward, backward, front, back, undo, redo, clear, wait, offline, repeat, expect)"
            )
        }
    }

    private static func place(_ words: inout Words) throws(ScriptError) -> Action {
        let kind = try words.word("emoji, shape, text or image")
        let entity: NewEntity
        switch kind.text {
        case "emoji":
            let character = try words.string("the emoji")
            try words.expect("at")
            let point = try words.point()
            let size = words.take("size") ? try words.number("a size", positive: true) : 40
            entity = .emoji(character, size: size)
            return .command(.place(entity, at: point))
        case "shape":
            let shape = try words.choice("a shape", Self.shapes)
            try words.expect("at")
            let point = try words.point()
            let (width, height) = words.take("size") ? try words.size() : (100, 100)
            return .command(.place(.shape(shape, width: width, height: height), at: point))
        case "text":
            let string = try words.string("the text")
            try words.expect("at")
            let point = try words.point()
            var font = "Helvetica"
            var size: Float = 24
            while true {
                if words.take("font") {
                    font = try words.string("a font name")
                } else if words.take("size") {
                    size = try words.number("a size", positive: true)
                } else {
                    break
                }
            }
            return .command(.place(.text(string, font: font, size: size), at: point))
        case "image":
            if words.peek?.kind == .string {
                let file = try words.string("the image file")
                try words.expect("at")
                let point = try words.point()
                var size: ImageSize?
                if words.take("size") {
                    let (width, height) = try words.size()
                    size = ImageSize(width: width, height: height)
                }
                return .image(file: file, use: .place(at: point, size: size))
            }
            let hex = try words.word("the image's SHA-256 in hex")
            guard let blob = BlobHash(hex: hex.text) else {
                throw ScriptError(at: words.location(of: hex), "\(hex.text) is not a SHA-256 in hex (64 digits)")
            }
            try words.expect("at")
            let point = try words.point()
            let (width, height) = words.take("size") ? try words.size() : (100, 100)
            return .command(.place(.image(blob, width: width, height: height), at: point))
        default:
            throw ScriptError(
                at: words.location(of: kind), "place what? \(kind.text) is not emoji, shape, text or image")
        }
    }

    static let fits: [String: BackgroundFit] = ["contain": .contain, "cover": .cover, "stretch": .stretch]

    private static func steps(_ words: inout Words) throws(ScriptError) -> Int {
        words.take("steps") ? try words.integer("a number of steps", in: 1...1000) : 4
    }

    private static func style(_ words: inout Words) throws(ScriptError) -> StyleChange {
        let field = try words.word("color, fill, weight, font, size, style or align")
        switch field.text {
        case "color": return .color(try words.color())
        case "fill": return .fill(try words.color())
        case "weight": return .weight(try words.number("a weight", positive: true))
        case "font": return .font(try words.string("a font name"))
        case "size": return .size(try words.number("a size", positive: true))
        case "style":
            return .textStyle(
                try words.choice(
                    "a text style", ["regular": TextStyle.regular, "outlined": .outlined, "framed": .framed]))
        case "align":
            return .alignment(
                try words.choice("an alignment", ["left": TextAlignment.left, "center": .center, "right": .right]))
        default:
            throw ScriptError(
                at: words.location(of: field),
                "set what? \(field.text) is not color, fill, weight, font, size, style or align")
        }
    }

    /// The longest a draw or an erase may last: a bot draws its samples at
    /// 120 a second, and a stroke of hours (a point a million units away,
    /// a speed of almost nothing) would be millions of them.
    static let longestStrokeSeconds: Float = 60

    private static func checkDuration(_ seconds: Float, of verb: ScriptToken, in words: Words) throws(ScriptError) {
        guard seconds <= longestStrokeSeconds else {
            throw ScriptError(
                at: words.location(of: verb),
                "a draw or an erase lasts at most \(Int(longestStrokeSeconds)) s; this one would last "
                    + (seconds < 1e9 ? "\(Int(seconds)) s" : "practically forever") + ": make it faster or shorter")
        }
    }

    private static func length(of points: [Point]) -> Float {
        zip(points, points.dropFirst()).reduce(0) { total, leg in
            let (dx, dy) = (leg.1.x - leg.0.x, leg.1.y - leg.0.y)
            return total + (dx * dx + dy * dy).squareRoot()
        }
    }

    /// `through` and points separated by commas.
    private static func path(_ words: inout Words) throws(ScriptError) -> [Point] {
        try words.expect("through")
        var points = [try words.point()]
        while words.takeComma() { points.append(try words.point()) }
        return points
    }

    static let eraseModes: [String: EraseMode] = Dictionary(
        uniqueKeysWithValues: EraseMode.allCases.map { ($0.rawValue, $0) })

    static let caps: [String: EndCap] = ["round": .round, "arrow": .arrow]

    static let shapes: [String: ShapeKind] = [
        "rectangle": .rectangle, "ellipse": .ellipse, "arrow": .arrow, "star": .star, "bubble": .bubble,
    ]

    static let tools: [String: StrokeTool] = [
        "pen": .pen, "brush": .brush, "marker": .marker, "neon": .neon, "pencil": .pencil, "eraser": .eraser,
        "blur": .blur,
    ]

    private static func tool(_ words: inout Words) throws(ScriptError) -> Action {
        var settings = DrawingSettings(tool: try words.choice("a tool", tools))
        while true {
            if words.take("color") {
                settings.color = try words.color()
            } else if words.take("weight") {
                settings.weight = try words.number("a weight", positive: true)
            } else if words.take("cap") {
                settings.endCap = try words.choice("round or arrow", caps)
            } else {
                break
            }
        }
        return .command(.setDrawing(settings))
    }

    private static func expectation(_ words: inout Words) throws(ScriptError) -> Expectation {
        let what = try words.word("count, hash or selected")
        switch what.text {
        case "count": return .count(try words.integer("an entity count", in: 0...Int(Int32.max)))
        case "hash": return .stateHash(try words.word("a state hash (hex or emoji key)").text)
        case "selected":
            let field = try words.word("a field name")
            guard Expectation.fields.contains(field.text) else {
                throw ScriptError(
                    at: words.location(of: field),
                    "\(field.text) is not a field (\(Expectation.fields.sorted().joined(separator: ", ")))")
            }
            guard let value = words.next() else {
                throw ScriptError(at: words.endLocation, "expected the value of \(field.text)")
            }
            return .selected(field: field.text, value: value.text)
        default:
            throw ScriptError(at: words.location(of: what), "expect what? \(what.text) is not count, hash or selected")
        }
    }

    /// A duration as scripts and `easel bot` write it: `250ms`, `1.5s`,
    /// `2m`; at most a day. Nil for anything else.
    public static func milliseconds(in text: String) -> Int64? {
        let (digits, scale): (Substring, Double) =
            text.hasSuffix("ms")
            ? (text.dropLast(2), 1)
            : text.hasSuffix("s") ? (text.dropLast(), 1000) : text.hasSuffix("m") ? (text.dropLast(), 60_000) : ("", 0)
        guard let value = Double(digits), value.isFinite, value >= 0, value * scale <= 86_400_000 else { return nil }
        return Int64(value * scale)
    }

    /// A whole number of characters, 0 or more.
    private static func characterCount(_ words: inout Words) throws(ScriptError) -> Int {
        try words.integer("a number of characters", in: 0...Int(Int32.max))
    }
}
