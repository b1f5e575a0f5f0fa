import EaselModel
import EaselProtocol

/// How a room's host reaches storage: the small port the Room's storage
/// work goes through. The server adapts EaselStore to it (so EaselStore
/// never imports EaselSync); `InMemoryRoomStorage` serves tests and the
/// network simulation.
///
/// Completions may run later and on another thread; the host hands them
/// back to the room on the room's own thread.
public protocol RoomStorage: AnyObject {
    /// The document's committed history; a document never written loads
    /// as an empty history of a new epoch.
    func load(_ document: String, completion: @escaping @Sendable (Result<CommittedHistory, RoomStorageError>) -> Void)

    /// Makes positioned ops durable. The completion reports success only
    /// once they would survive a crash; the first op continues the log.
    func append(
        _ ops: [LoggedOp], to document: String,
        completion: @escaping @Sendable (Result<Void, RoomStorageError>) -> Void)
}

/// Why storage failed a room's request.
public struct RoomStorageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
