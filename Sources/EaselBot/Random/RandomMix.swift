/// How often a random bot chooses each kind of action, as weights relative
/// to each other: `place=4` beside `drag=2` places twice as often as it
/// drags.
public struct RandomMix: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        // New kinds go last: a mix walks them in this order, so a seed keeps
        // making the same edits.
        case place, tap, drag, pinch, rotate, draw, type, style, duplicate, delete, order, undo, redo, clear, offline
        /// Places one of the bot's image files (`RandomBot.imageFiles`),
        /// uploaded first; a place of something else without files.
        case image
    }

    public private(set) var weights: [Kind: Int]
    /// The kinds in a fixed order with their running weight totals, so a
    /// draw from 0..<total picks a kind the same way on every platform.
    private var cumulative: [(kind: Kind, upTo: Int)] = []

    /// Everyday editing; no clear-all, offline periods or images unless asked.
    public static let standard = RandomMix([
        .place: 4, .tap: 6, .drag: 5, .pinch: 2, .rotate: 2, .draw: 3, .type: 1, .style: 3, .duplicate: 1,
        .delete: 2, .order: 1, .undo: 1, .redo: 1,
    ])

    public init(_ weights: [Kind: Int]) {
        self.weights = weights.filter { $0.value > 0 }
        var total = 0
        for kind in Kind.allCases {
            guard let weight = self.weights[kind] else { continue }
            total += weight
            cumulative.append((kind, total))
        }
    }

    /// The standard mix with the weights written as `kind=weight,…` changed:
    /// `offline=1,clear=0`.
    public init(parsing text: String) throws(MixError) {
        var weights = RandomMix.standard.weights
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", omittingEmptySubsequences: false)
            let name = parts.first.map { String($0).trimmingSpaces } ?? ""
            guard let kind = Kind(rawValue: name) else {
                throw MixError(
                    "\"\(name)\" is not an action; the actions are "
                        + Kind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard parts.count == 2, let weight = Int(String(parts[1]).trimmingSpaces), (0...1000).contains(weight)
            else { throw MixError("the weight of \(name) must be a whole number from 0 to 1000, as in \(name)=3") }
            weights[kind] = weight
        }
        guard weights.values.contains(where: { $0 > 0 }) else { throw MixError("every weight is 0: nothing to do") }
        self.init(weights)
    }

    var total: Int { cumulative.last?.upTo ?? 0 }

    /// The kind a draw in 0..<total stands for.
    func kind(at draw: Int) -> Kind {
        cumulative.first { draw < $0.upTo }?.kind ?? .tap
    }

    public var description: String {
        Kind.allCases.compactMap { kind in weights[kind].map { "\(kind.rawValue)=\($0)" } }.joined(separator: ",")
    }

    public static func == (left: RandomMix, right: RandomMix) -> Bool { left.weights == right.weights }
    public func hash(into hasher: inout Hasher) { hasher.combine(weights) }
}

public struct MixError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
