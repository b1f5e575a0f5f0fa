/// The code an `error` message carries (Protocol/README.md, section 7).
///
/// A struct rather than an enum: a peer must be able to carry and show a
/// code that a newer version defined.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    // Decoding: bytes or text a decoder cannot read.
    public static let truncated = ErrorCode(rawValue: 100)
    public static let malformedVarint = ErrorCode(rawValue: 101)
    public static let trailingBytes = ErrorCode(rawValue: 102)
    public static let unsupportedWireVersion = ErrorCode(rawValue: 103)
    public static let unknownMessageType = ErrorCode(rawValue: 104)
    public static let unknownTag = ErrorCode(rawValue: 105)
    public static let lengthExceedsInput = ErrorCode(rawValue: 106)
    public static let nonFiniteNumber = ErrorCode(rawValue: 107)
    public static let invalidValue = ErrorCode(rawValue: 108)
    public static let tooLarge = ErrorCode(rawValue: 109)
    public static let invalidJSON = ErrorCode(rawValue: 110)
    public static let wrongType = ErrorCode(rawValue: 111)

    // Session and document: messages that decode but are refused.
    public static let notJoined = ErrorCode(rawValue: 200)
    public static let alreadyJoined = ErrorCode(rawValue: 201)
    public static let unsupportedProtocol = ErrorCode(rawValue: 202)
    public static let wrongReplica = ErrorCode(rawValue: 203)
    public static let opConflict = ErrorCode(rawValue: 204)
    public static let counterTooFar = ErrorCode(rawValue: 205)
    public static let unknownEntity = ErrorCode(rawValue: 206)
    public static let fieldNotInKind = ErrorCode(rawValue: 207)
    public static let notStrokeAuthor = ErrorCode(rawValue: 208)
    public static let appendConflict = ErrorCode(rawValue: 209)
    /// An insert's origin, or a character a delete names, that the text
    /// does not have.
    public static let unknownCharacter = ErrorCode(rawValue: 210)
    /// An insert past the characters a text may ever have.
    public static let textTooLong = ErrorCode(rawValue: 211)
    /// A write of a whole string to a text whose characters merge.
    public static let textMergesCharacters = ErrorCode(rawValue: 212)
    /// A push that would take the document past the entities or bytes of
    /// content the server lets one document hold.
    public static let documentFull = ErrorCode(rawValue: 213)

    // Authentication and authorization.
    public static let unauthorized = ErrorCode(rawValue: 300)
    public static let tokenExpired = ErrorCode(rawValue: 301)
    public static let wrongDocument = ErrorCode(rawValue: 302)
    public static let readOnly = ErrorCode(rawValue: 303)
    public static let replicaInUse = ErrorCode(rawValue: 304)
    /// A hello naming another document than the WebSocket URL's path.
    public static let pathMismatch = ErrorCode(rawValue: 305)

    // Limits.
    public static let rateLimited = ErrorCode(rawValue: 400)
    public static let roomFull = ErrorCode(rawValue: 401)
    public static let serverFull = ErrorCode(rawValue: 402)

    // Server.
    public static let internalError = ErrorCode(rawValue: 500)
    public static let storageFailed = ErrorCode(rawValue: 501)
    public static let shuttingDown = ErrorCode(rawValue: 502)
    /// Another node serves the document; the message names it when one does.
    public static let moved = ErrorCode(rawValue: 503)

    /// Every code the spec defines, with its name there.
    public static let named: [(code: ErrorCode, name: String)] = [
        (.truncated, "truncated"), (.malformedVarint, "malformedVarint"), (.trailingBytes, "trailingBytes"),
        (.unsupportedWireVersion, "unsupportedWireVersion"), (.unknownMessageType, "unknownMessageType"),
        (.unknownTag, "unknownTag"), (.lengthExceedsInput, "lengthExceedsInput"),
        (.nonFiniteNumber, "nonFiniteNumber"), (.invalidValue, "invalidValue"), (.tooLarge, "tooLarge"),
        (.invalidJSON, "invalidJSON"), (.wrongType, "wrongType"),
        (.notJoined, "notJoined"), (.alreadyJoined, "alreadyJoined"), (.unsupportedProtocol, "unsupportedProtocol"),
        (.wrongReplica, "wrongReplica"), (.opConflict, "opConflict"), (.counterTooFar, "counterTooFar"),
        (.unknownEntity, "unknownEntity"), (.fieldNotInKind, "fieldNotInKind"),
        (.notStrokeAuthor, "notStrokeAuthor"), (.appendConflict, "appendConflict"),
        (.unknownCharacter, "unknownCharacter"), (.textTooLong, "textTooLong"),
        (.textMergesCharacters, "textMergesCharacters"), (.documentFull, "documentFull"),
        (.unauthorized, "unauthorized"), (.tokenExpired, "tokenExpired"), (.wrongDocument, "wrongDocument"),
        (.readOnly, "readOnly"), (.replicaInUse, "replicaInUse"), (.pathMismatch, "pathMismatch"),
        (.rateLimited, "rateLimited"), (.roomFull, "roomFull"), (.serverFull, "serverFull"),
        (.internalError, "internal"), (.storageFailed, "storageFailed"), (.shuttingDown, "shuttingDown"),
        (.moved, "moved"),
    ]

    /// The server refused the connection's access token (none, unreadable,
    /// expired, or for another document): reconnecting with the same token
    /// cannot help, so a client stops and asks for another.
    public var refusesAccess: Bool {
        self == .unauthorized || self == .tokenExpired || self == .wrongDocument
    }

    /// The spec's name, or the number for a code this version does not know.
    public var description: String {
        Self.named.first { $0.code == self }?.name ?? "error \(rawValue)"
    }
}

/// Why a message could not be decoded: the code a peer answers with, and a
/// detail for people.
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var detail: String
    /// The batch of the push that failed to decode, when the decoder read
    /// that far: the refusal names it, so a client with several pushes in
    /// flight knows which one failed.
    public var batch: UInt64?

    /// Details quote the input; they are cut to 256 bytes so an error
    /// about a huge input is not huge itself (and fits an `error` message).
    public init(_ code: ErrorCode, _ detail: String) {
        self.code = code
        self.detail =
            detail.utf8.count <= 256 ? detail : String(decoding: detail.utf8.prefix(253), as: UTF8.self) + "…"
    }

    /// The same error, about the push `batch`.
    func about(batch: UInt64) -> DecodeError {
        var error = self
        error.batch = batch
        return error
    }

    public var description: String { "\(code) (\(code.rawValue)): \(detail)" }
}
