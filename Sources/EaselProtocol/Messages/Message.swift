import EaselModel

/// One protocol message (Protocol/README.md, section 2).
public enum Message: Hashable, Sendable {
    case hello(Hello)
    case welcome(Welcome)
    case push(Push)
    case ack(Ack)
    /// Ops other clients committed, in position order.
    case ops([PositionedOp])
    case presence(Presence)
    /// A peer's connection ended.
    case leave(ReplicaID)
    case error(ErrorMessage)
    case ping(nonce: UInt64)
    case pong(nonce: UInt64)

    public var type: MessageType {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .push: .push
        case .ack: .ack
        case .ops: .ops
        case .presence: .presence
        case .leave: .leave
        case .error: .error
        case .ping: .ping
        case .pong: .pong
        }
    }
}

/// A message's tag in binary and its `type` in JSON. Never renumber.
public enum MessageType: UInt8, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case hello = 1
    case welcome = 2
    case push = 3
    case ack = 4
    case ops = 5
    case presence = 6
    case leave = 7
    case error = 8
    case ping = 9
    case pong = 10

    public var description: String {
        switch self {
        case .hello: "hello"
        case .welcome: "welcome"
        case .push: "push"
        case .ack: "ack"
        case .ops: "ops"
        case .presence: "presence"
        case .leave: "leave"
        case .error: "error"
        case .ping: "ping"
        case .pong: "pong"
        }
    }

    public init?(name: String) {
        guard let type = Self.allCases.first(where: { $0.description.utf8.elementsEqual(name.utf8) }) else {
            return nil
        }
        self = type
    }
}
