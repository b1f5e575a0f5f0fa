import EaselProtocol

/// What one call into a room produced: the outputs for the host, and what
/// the server must note about its connections and the room itself.
struct RoomIO {
    var outputs: [ServerOutput] = []
    /// Connections the room closed; the server ignores what they send next.
    var closed: [ConnectionID] = []
    /// The room's storage failed and it closed everyone: forget it.
    var roomFailed = false
    /// Connections sent a refusal, with its code: each one costs the
    /// connection a strike from its allowance.
    var refused: [(connection: ConnectionID, code: ErrorCode)] = []
    /// Connections a push was refused for now (a limit, 4xx; trouble, 5xx):
    /// their client sends it again, so the server takes no later push of
    /// theirs meanwhile.
    var pushesHeldBack: [ConnectionID] = []

    mutating func send(_ message: Message, to connection: ConnectionID) {
        outputs.append(.send(message, to: [connection]))
    }

    mutating func refuse(
        _ connection: ConnectionID, code: ErrorCode, batch: UInt64? = nil, _ message: @autoclosure () -> String
    ) {
        send(.error(ErrorMessage(code: code, batch: batch, message: message())), to: connection)
        refused.append((connection, code))
        if batch != nil, code.rawValue >= 400 { pushesHeldBack.append(connection) }
    }

    /// Sends a fatal error, then closes the connection.
    mutating func fail(_ connection: ConnectionID, code: ErrorCode, close: CloseCode, _ message: String) {
        send(.error(ErrorMessage(code: code, fatal: true, message: message)), to: connection)
        self.close(connection, close)
    }

    mutating func close(_ connection: ConnectionID, _ code: CloseCode) {
        outputs.append(.close(connection, code))
        closed.append(connection)
    }
}
