/// Why replay cannot do what it was asked: a position out of reach, a
/// predicate that does not parse, a log that does not read.
public struct ReplayError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
