import EaselModel

/// A cursor over one line's tokens, with readers for the values a script
/// writes; each failure names the column of the word that is wrong.
struct Words {
    private let tokens: [ScriptToken]
    private var index = 0
    let line: Int

    init(_ tokens: [ScriptToken], line: Int) {
        self.tokens = tokens
        self.line = line
    }

    var peek: ScriptToken? { index < tokens.count ? tokens[index] : nil }

    mutating func next() -> ScriptToken? {
        defer { index += 1 }
        return peek
    }

    mutating func skip() { index += 1 }

    func location(of token: ScriptToken) -> SourceLocation { SourceLocation(line: line, column: token.column) }

    /// Just past the last word: where a missing one was due.
    var endLocation: SourceLocation {
        guard let last = tokens.last else { return SourceLocation(line: line, column: 1) }
        let width = last.kind == .string ? last.text.count + 2 : last.text.count
        return SourceLocation(line: line, column: last.column + width)
    }

    private func missing(_ what: String) -> ScriptError {
        ScriptError(at: peek.map(location(of:)) ?? endLocation, "expected \(what)")
    }

    mutating func word(_ what: String) throws(ScriptError) -> ScriptToken {
        guard let token = peek, token.kind == .word else { throw missing(what) }
        index += 1
        return token
    }

    mutating func string(_ what: String) throws(ScriptError) -> String {
        guard let token = peek, token.kind == .string else { throw missing("\(what) in quotes") }
        index += 1
        return token.text
    }

    /// Takes the keyword when it comes next.
    mutating func take(_ keyword: String) -> Bool {
        guard let token = peek, token.kind == .word, token.text == keyword else { return false }
        index += 1
        return true
    }

    mutating func takeComma() -> Bool {
        guard peek?.kind == .comma else { return false }
        index += 1
        return true
    }

    mutating func expect(_ keyword: String) throws(ScriptError) {
        guard take(keyword) else { throw missing("'\(keyword)'") }
    }

    /// Nothing may follow a complete statement.
    func end() throws(ScriptError) {
        guard let extra = peek else { return }
        throw ScriptError(at: location(of: extra), "unexpected \(extra.text) after a complete statement")
    }

    mutating func number(_ what: String, positive: Bool = false) throws(ScriptError) -> Float {
        let token = try word(what)
        guard let value = Float(token.text), value.isFinite, !positive || value > 0 else {
            throw ScriptError(
                at: location(of: token),
                "\(token.text) is not \(what)\(positive ? " (a number above 0)" : " (a number)")")
        }
        return value
    }

    mutating func integer(_ what: String, in range: ClosedRange<Int>) throws(ScriptError) -> Int {
        let token = try word(what)
        guard let value = Int(token.text), range.contains(value) else {
            throw ScriptError(
                at: location(of: token), "\(token.text) is not \(what) (\(range.lowerBound) to \(range.upperBound))")
        }
        return value
    }

    mutating func point() throws(ScriptError) -> Point {
        Point(x: try number("an x coordinate"), y: try number("a y coordinate"))
    }

    mutating func size() throws(ScriptError) -> (Float, Float) {
        (try number("a width", positive: true), try number("a height", positive: true))
    }

    /// `250ms` or `1.5s`, in milliseconds.
    mutating func duration() throws(ScriptError) -> Int64 {
        let token = try word("a duration (250ms, 1.5s, 2m)")
        guard let milliseconds = ScriptParser.milliseconds(in: String(token.text)) else {
            throw ScriptError(
                at: location(of: token), "\(token.text) is not a duration (250ms, 1.5s, 2m; at most a day)")
        }
        return milliseconds
    }

    /// `#rrggbb` or `#rrggbbaa`.
    mutating func color() throws(ScriptError) -> Color {
        let token = try word("a colour (#rrggbb or #rrggbbaa)")
        guard let color = Self.color(token.text) else {
            throw ScriptError(at: location(of: token), "\(token.text) is not a colour (#rrggbb or #rrggbbaa)")
        }
        return color
    }

    static func color(_ text: String) -> Color? {
        guard text.hasPrefix("#"), text.count == 7 || text.count == 9, let value = UInt32(text.dropFirst(), radix: 16)
        else { return nil }
        return Color(rawValue: text.count == 7 ? value << 8 | 0xFF : value)
    }

    mutating func choice<T>(_ what: String, _ options: [String: T]) throws(ScriptError) -> T {
        let token = try word(what)
        guard let value = options[token.text] else {
            throw ScriptError(
                at: location(of: token),
                "\(token.text) is not \(what) (\(options.keys.sorted().joined(separator: ", ")))")
        }
        return value
    }
}
