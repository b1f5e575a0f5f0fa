import EaselModel
import EaselProtocol
import EaselReplay
import Foundation

/// One position of a history on one line: position, received time, author,
/// visible entities, state hash and emoji key, then what the op did. The
/// fixed-width columns come first so a long summary cannot push them.
struct StepLine {
    let positionWidth: Int
    let authorWidth: Int
    private let formatter: ISO8601DateFormatter

    init(for history: OpHistory) {
        positionWidth = String(history.head).count
        authorWidth = min(16, history.ops.map(\.author.count).max() ?? 1)
        formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    }

    func line(_ position: UInt64, _ logged: LoggedOp?, _ document: Document) -> String {
        let hash = document.stateHash
        let number = String(position)
        let columns = [
            String(repeating: " ", count: max(0, positionWidth - number.count)) + number,
            logged.map { formatter.string(from: Date(timeIntervalSince1970: Double($0.receivedAt) / 1000)) }
                ?? String(repeating: " ", count: 24),
            padded(logged?.author ?? "", to: authorWidth),
            padded("\(document.visibleCount) ent", to: 8),
            hash.hex, hash.emojiKey,
            logged?.op.summary ?? "(start)",
        ]
        return columns.joined(separator: "  ")
    }

    private func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
