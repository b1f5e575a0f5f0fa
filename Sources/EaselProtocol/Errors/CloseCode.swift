/// A WebSocket close code the server uses (Protocol/README.md, section 7).
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let normal = CloseCode(rawValue: 1000)
    public static let goingAway = CloseCode(rawValue: 1001)
    public static let protocolViolation = CloseCode(rawValue: 1002)
    public static let wrongFrameKind = CloseCode(rawValue: 1003)
    public static let refused = CloseCode(rawValue: 1008)
    public static let messageTooBig = CloseCode(rawValue: 1009)
    public static let internalError = CloseCode(rawValue: 1011)
    public static let tryAgainLater = CloseCode(rawValue: 1013)
    public static let fatalError = CloseCode(rawValue: 4000)
    public static let tooManyInvalid = CloseCode(rawValue: 4001)
    public static let tooSlow = CloseCode(rawValue: 4002)
    public static let replaced = CloseCode(rawValue: 4003)
    public static let noHello = CloseCode(rawValue: 4004)
    public static let storageFailed = CloseCode(rawValue: 4005)
    public static let silent = CloseCode(rawValue: 4006)
    public static let moved = CloseCode(rawValue: 4007)

    public var description: String { String(rawValue) }
}
