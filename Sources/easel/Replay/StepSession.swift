import EaselModel
import EaselReplay
import Foundation

/// `easel replay --step`: a prompt that moves through a history one op at a
/// time, back as well as forward (from the timeline's checkpoints), and
/// shows entities. Reads commands a line at a time, so a terminal or a
/// pipe can drive it.
struct StepSession {
    private var timeline: Timeline
    private let line: StepLine
    private let last: UInt64
    private var position: UInt64
    private var document: Document

    init(history: OpHistory, until: UInt64?) {
        timeline = Timeline(history)
        line = StepLine(for: history)
        last = until ?? history.head
        position = history.earliest
        document = history.baseDocument
    }

    static let help = """
        commands:
          n [K]      next op (Enter does the same), or K ops forward
          b [K]      back one op, or K
          j POS      jump to a position
          s ID       show an entity's fields
          l          list the visible entities, bottom first
          h          this help
          q          quit
        """

    mutating func run() {
        let history = timeline.history
        write("\(history.name): positions \(history.earliest)…\(last); h for help\n")
        show()
        while true {
            write("[\(position)/\(last)] > ")
            guard let input = readLine() else {
                write("\n")
                return
            }
            let words = input.split(whereSeparator: \.isWhitespace).map(String.init)
            let argument = words.dropFirst().first
            switch words.first ?? "n" {
            case "n", "next": move(to: position + (argument.flatMap(UInt64.init) ?? 1), relative: true)
            case "b", "back":
                let steps = argument.flatMap(UInt64.init) ?? 1
                move(to: position - min(steps, position - history.earliest), relative: true)
            case "j", "jump":
                guard let target = argument.flatMap(UInt64.init) else {
                    write("jump to which position? e.g. j 120\n")
                    continue
                }
                move(to: target, relative: false)
            case "s", "show": showEntity(argument)
            case "l", "list": list()
            case "h", "help", "?": write(Self.help + "\n")
            case "q", "quit", "exit": return
            default: write("unknown command \"\(words[0])\"; h for help\n")
            }
        }
    }

    private mutating func move(to target: UInt64, relative: Bool) {
        let history = timeline.history
        guard target >= history.earliest, target <= last else {
            if relative {
                write(target > last ? "at the end (\(last))\n" : "at the start (\(history.earliest))\n")
            } else {
                write("position \(target) is outside \(history.earliest)…\(last)\n")
            }
            return
        }
        if target == position + 1, let next = history.op(at: target) {
            document.apply(next.op)
        } else {
            // Within this history's positions, so always reachable.
            guard let state = try? timeline.document(at: target) else { return }
            document = state
        }
        position = target
        show()
    }

    private func show() {
        write(line.line(position, timeline.history.op(at: position), document) + "\n")
    }

    private func showEntity(_ text: String?) {
        guard let text else {
            write("show which entity? e.g. s e3@00000000000000c1\n")
            return
        }
        do {
            let id = try Predicate.entityID(text)
            guard let fields = EntityFields(id, in: document) else {
                write("no entity \(id) at position \(position)\n")
                return
            }
            write("\(id)\n" + fields.values.map { "  \($0.name) = \($0.value)\n" }.joined())
        } catch {
            write("\(error)\n")
        }
    }

    private func list() {
        let ids = document.zOrder
        if ids.isEmpty { write("no visible entities\n") }
        for id in ids {
            guard let fields = EntityFields(id, in: document) else { continue }
            write("  \(id)  \(fields["kind"] ?? "")  x=\(fields["x"] ?? "") y=\(fields["y"] ?? "")\n")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
