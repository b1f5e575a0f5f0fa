/// Why a client loop, or a session on one, could not be made.
public struct TransportError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
