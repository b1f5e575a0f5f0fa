import EaselBot
import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Foundation
import Testing

@Suite struct ExampleScriptTests {
    @Test func everyExampleScriptParsesAndRunsToItsEndWithItsAssertionsPassing() throws {
        let folder = packageRoot.appendingPathComponent("examples/bots")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".easel") }
        #expect(!names.isEmpty)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            var run = ScriptRun(try ScriptParser.parse(text))
            var client = SyncClient(
                document: try DocumentName("examples/\(name.dropLast(6))"),
                user: UserInfo(name: "bot", initials: "B", color: .black), replica: ReplicaID(rawValue: 0xE1),
                at: Timestamp(milliseconds: 0))
            var now = Timestamp(milliseconds: 0)
            running: while true {
                switch try run.advance(&client, at: now) {
                case .wait(let until): now = until
                case .offline: continue
                case .finished: break running
                }
            }
            #expect(run.isFinished, "\(name)")
        }
    }
}
