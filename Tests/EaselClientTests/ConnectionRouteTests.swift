import EaselClient
import EaselProtocol
import Testing

/// Where a session connects: the document's own path, so a router can send
/// it to the node serving the document, and the node a `moved` error named.
@Suite("Connection routes")
struct ConnectionRouteTests {
    @Test("a session connects to /d/<document>, with ?node=<node> once a moved error named one")
    func theRouteIsTheDocumentsPathAndTheNamedNode() throws {
        let document = try DocumentName("team/board-1")
        #expect(ConnectionRoute(encoding: .binary, document: document).path == "/d/team/board-1")
        #expect(
            ConnectionRoute(encoding: .binary, document: document, node: "node2").path == "/d/team/board-1?node=node2")
    }

    @Test("a base URL naming no path takes the document's; one naming a path keeps it, with the node query")
    func aBasePathIsKept() throws {
        let route = ConnectionRoute(encoding: .json, document: try DocumentName("board"), node: "n 1")
        #expect(route.path(under: "") == "/d/board?node=n%201")
        #expect(route.path(under: "/") == "/d/board?node=n%201")
        #expect(route.path(under: "/easel") == "/easel?node=n%201")
    }
}
