import CLibWebSockets
import EaselLocking
import Foundation
import Logging

/// libwebsockets' own lines go into the server's log, so a JSON log stays
/// one object a line. lws 4.1 says "calling service" at error level for
/// every connection the front door hands over: its lines are debug here,
/// with the text kept.
enum LibWebSocketsLog {
    private static let logger = Locked<Logger?>(nil)

    static func route(to logger: Logger) {
        self.logger.withLock { $0 = logger }
        lws_set_log_level(Int32(LLL_ERR | LLL_WARN)) { _, line in
            guard let line else { return }
            let text = String(decoding: UnsafeRawBufferPointer(start: line, count: strlen(line)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            LibWebSocketsLog.logger.withLock { $0 }?.debug("libwebsockets", metadata: ["line": "\(text)"])
        }
    }
}
