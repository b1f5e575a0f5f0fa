import EaselClient
import EaselClientLWS
import EaselModel
import EaselProtocol
import EaselSync
import Testing

/// What a client of the test's own reads from the server.
func readServer(port: Int, document: String) throws -> (hash: StateHash, entities: Int) {
    let loop = try ClientLoop()
    defer { loop.shutdown() }
    let engine = SyncClient(
        document: try DocumentName(document), user: UserInfo(name: "reader", initials: "R", color: .black),
        replica: .random(), at: Timestamp(milliseconds: 0))
    let session = try DocumentSession(engine: engine, url: "ws://127.0.0.1:\(port)", loop: loop)
    session.start()
    defer { session.stop() }
    let joined = session.wait(timeout: .seconds(10)) { $0.connectionState == .connected }
    try #require(joined)
    return session.read { ($0.editor.document.stateHash, $0.editor.document.visibleCount) }
}
