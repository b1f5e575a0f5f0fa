import EaselModel
import EaselSync

/// What drives one bot: a script, or seeded random edits. The host calls
/// `advance` with the bot's client engine and does what the step says; the
/// behaviour itself never sleeps or touches a socket.
public protocol BotBehaviour: Sendable {
    /// Edits until time must pass; a failure (a script's expectation not
    /// met, a gesture refused) throws with where it was written.
    mutating func advance(_ client: inout SyncClient, at now: Timestamp) throws(ScriptError) -> BotStep
}

/// What the host does after `advance`.
public enum BotStep: Hashable, Sendable {
    /// Call `advance` again at this time.
    case wait(until: Timestamp)
    /// Close the connection now, keep the client, reconnect at this time;
    /// call `advance` again at once (the bot keeps editing offline).
    case offline(reconnectAt: Timestamp)
    /// Read the image file, upload it and place it (its create waits for
    /// the upload, blob before op); call `advance` again at once.
    case image(ImageStep)
    case finished
}

/// An image a script asks its host to upload and use.
public struct ImageStep: Hashable, Sendable {
    public var file: String
    public var use: ImageUse
    /// The statement's place in the script, for errors.
    public var location: SourceLocation

    public init(file: String, use: ImageUse, location: SourceLocation) {
        self.file = file
        self.use = use
        self.location = location
    }
}
