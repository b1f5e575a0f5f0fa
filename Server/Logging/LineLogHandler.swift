import EaselLocking
import EaselProtocol
import Foundation
import Logging

/// How the server's log lines look: `text` for people (`time level
/// message key=value …`), `json` for log shippers (one object a line).
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// Where log lines go, whole: lines from several threads never interleave.
public final class LogSink: Sendable {
    private let write: @Sendable (String) -> Void

    /// Lines to standard error, in text; written from a thread of their own
    /// (`BackgroundLineWriter`), so a reader that stalls stalls no one.
    public static let standardError = LogSink(standardErrorIn: .text)
    /// The same, for JSON lines.
    public static let standardErrorJSON = LogSink(standardErrorIn: .json)

    public static func standardError(_ format: LogFormat) -> LogSink {
        switch format {
        case .text: standardError
        case .json: standardErrorJSON
        }
    }

    private convenience init(standardErrorIn format: LogFormat) {
        let writer = BackgroundLineWriter(descriptor: STDERR_FILENO) { dropped in
            LineLogHandler.line(
                format: format, level: .warning, message: "log lines dropped",
                fields: [
                    ("count", "\(dropped)"), ("reason", "the log's reader fell behind"),
                ])
        }
        // The writer takes each line whole under its own lock.
        self.init(unlocked: writer.write)
    }

    /// `write` is called with each line, newline included, one at a time.
    public convenience init(_ write: @escaping @Sendable (String) -> Void) {
        let locked = Locked(write)
        self.init(unlocked: { line in locked.withLock { $0(line) } })
    }

    private init(unlocked write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    func emit(_ line: String) {
        write(line)
    }
}

/// A swift-log handler that writes one line a record, in either format.
/// Metadata values are strings; one that reads as a whole number goes into
/// JSON as a number.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let format: LogFormat
    let sink: LogSink

    public init(format: LogFormat, level: Logger.Level, sink: LogSink? = nil) {
        self.format = format
        logLevel = level
        self.sink = sink ?? .standardError(format)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { _, given in given }
            .sorted { $0.key < $1.key }
            .map { ($0.key, Self.flat($0.value)) }
        sink.emit(Self.line(format: format, level: event.level, message: event.message.description, fields: fields))
    }

    /// One record as one line, newline included.
    static func line(format: LogFormat, level: Logger.Level, message: String, fields: [(String, String)]) -> String {
        let time = Self.timestamp(Date())
        switch format {
        case .text:
            // The message escaped as JSON escapes it, unquoted: one line stays one line.
            var line = "\(time) \(level) \(JSONWriter.quoted(message).dropFirst().dropLast())"
            for (key, value) in fields {
                // Quoted and escaped unless plainly one word: a value a client
                // chose (a user name) can never start a line of its own.
                let plain =
                    !value.isEmpty
                    && value.unicodeScalars.allSatisfy { scalar in
                        scalar.value > 0x20 && scalar.value != 0x7F && scalar != "\"" && scalar != "="
                            && !scalar.properties.isWhitespace
                    }
                line += " \(key)=\(plain ? value : JSONWriter.quoted(value))"
            }
            return line + "\n"
        case .json:
            var writer = JSONWriter(capacity: 256)
            writer.object { writer in
                writer.member("time", time)
                writer.member("level", level.rawValue)
                writer.member("message", message)
                for (key, value) in fields where !["time", "level", "message"].contains(key) {
                    writer.key(key)
                    if let number = Int64(value) { writer.integer(number) } else { writer.string(value) }
                }
            }
            return String(decoding: writer.bytes, as: UTF8.self) + "\n"
        }
    }

    private static func flat(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(flat).joined(separator: ",")
        case .dictionary(let values):
            values.sorted { $0.key < $1.key }.map { "\($0.key):\(flat($0.value))" }
                .joined(separator: ",")
        }
    }

    /// UTC, to the millisecond: `2026-11-25T20:41:28.123Z`.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = String(milliseconds % 1000)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)Z"
    }
}
