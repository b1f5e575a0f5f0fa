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
    case finished
}
