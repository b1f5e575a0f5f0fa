/// One word of a script line: a bare word (keywords, numbers, colours,
/// durations), a quoted string, or a comma.
struct ScriptToken: Hashable {
    enum Kind: Hashable {
        case word
        case string
        case comma
    }

    var kind: Kind
    var text: String
    var column: Int
}

enum ScriptLexer {
    /// The tokens of one line, up to a `//` comment (`#` starts colours).
    static func tokens(of line: Substring, lineNumber: Int) throws(ScriptError) -> [ScriptToken] {
        var tokens: [ScriptToken] = []
        let characters = Array(line)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character == " " || character == "\t" || character == "\r" {
                index += 1
            } else if character == "/" && index + 1 < characters.count && characters[index + 1] == "/" {
                break
            } else if character == "," {
                tokens.append(ScriptToken(kind: .comma, text: ",", column: column))
                index += 1
            } else if character == "\"" {
                var text = ""
                index += 1
                var closed = false
                while index < characters.count {
                    let next = characters[index]
                    index += 1
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\", index < characters.count {
                        let escaped = characters[index]
                        index += 1
                        switch escaped {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "\"", "\\": text.append(escaped)
                        default:
                            throw ScriptError(
                                at: SourceLocation(line: lineNumber, column: index - 1),
                                "unknown escape \\\(escaped) (use \\\", \\\\, \\n or \\t)")
                        }
                    } else {
                        text.append(next)
                    }
                }
                guard closed else {
                    throw ScriptError(
                        at: SourceLocation(line: lineNumber, column: column), "this string has no closing quote")
                }
                tokens.append(ScriptToken(kind: .string, text: text, column: column))
            } else {
                var text = ""
                while index < characters.count, !" \t\r,\"".contains(characters[index]) {
                    text.append(characters[index])
                    index += 1
                }
                tokens.append(ScriptToken(kind: .word, text: text, column: column))
            }
        }
        return tokens
    }
}
