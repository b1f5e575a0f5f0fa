import EaselLocking
import EaselTestSupport
import Foundation
import Logging
import Testing

@testable import EaselServer

/// The log's two formats, line by line: whatever a client put in a field,
/// a record stays one line, and a JSON line parses.
@Suite struct LineLogHandlerTests {
    func lines(_ format: LogFormat, _ log: (Logger) -> Void) -> [String] {
        let written = Locked<[String]>([])
        let sink = LogSink { line in written.withLock { $0.append(line) } }
        log(Logger(label: "test") { _ in LineLogHandler(format: format, level: .info, sink: sink) })
        return written.withLock { $0 }
    }

    @Test func aValueWithALineBreakQuotesOrSpacesStaysOnOneTextLineEscaped() {
        let written = lines(.text) { logger in
            logger.info(
                "connection joined",
                metadata: ["user": "ada\n2026-01-01T00:00:00.000Z error forged", "role": "edit", "note": "a b"])
        }
        #expect(written.count == 1)
        let line = written[0]
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false, "\(line)")
        #expect(line.contains(#"user="ada\n2026-01-01T00:00:00.000Z error forged""#), "\(line)")
        #expect(line.contains(" role=edit") && line.contains(#" note="a b""#), "\(line)")
        #expect(line.contains(" info connection joined "), "\(line)")
    }

    @Test func aJSONLineParsesWithNumbersAsNumbersAndTheSameEscapes() throws {
        let written = lines(.json) { logger in
            logger.warning("slow commit", metadata: ["ms": "312", "user": "a\"b\nc", "document": "team/board"])
        }
        #expect(written.count == 1 && written[0].filter { $0 == "\n" }.count == 1)
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(record["message"] as? String == "slow commit" && record["level"] as? String == "warning")
        #expect(record["ms"] as? Int == 312)
        #expect(record["user"] as? String == "a\"b\nc")
        #expect((record["time"] as? String)?.hasSuffix("Z") == true)
    }

    @Test func anIncidentIsEightHexDigitsThatNeverReadAsANumberSoTheJSONLogKeepsItAString() {
        for _ in 0..<5000 {
            let incident = Incident.next()
            #expect(incident.count == 8 && incident.allSatisfy(\.isHexDigit), "\(incident)")
            #expect(Int64(incident) == nil, "\(incident) would go into the JSON log as a number")
        }
    }
}
