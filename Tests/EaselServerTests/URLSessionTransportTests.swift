#if canImport(FoundationNetworking) || canImport(Darwin)
    import EaselClient
    import EaselClientLWS
    import EaselClientURLSession
    import EaselModel
    import EaselProtocol
    import EaselSync
    import EaselTestSupport
    import Foundation
    import Testing

    /// EaselClient on Foundation's URLSessionWebSocketTask against the real
    /// server, beside a client on libwebsockets.
    @Suite("EaselClient over URLSessionWebSocketTask", .serialized)
    struct URLSessionTransportTests {
        static let document = "team/board-1"

        /// On Linux here URLSession cannot open a WebSocket at all (Debian's
        /// libcurl and the toolchain's FoundationNetworking are built without
        /// them, Docs/server.md), and its failing attempts once crashed
        /// libdispatch's event loop (`_dispatch_event_loop_drain`, a null
        /// pointer) in this shared test process while other tests spawned
        /// processes, taking the whole suite down. So these tests run where
        /// Foundation is Apple's; here the transport is only compiled.
        static let whyNotOnLinux: Comment = "URLSession has no WebSockets here, and its attempts crashed libdispatch"
        static var onLinux: Bool {
            #if os(Linux)
                true
            #else
                false
            #endif
        }

        /// The README's "In your app" code, run against `url`.
        func openTheBoard(at url: URL) throws -> DocumentSession {
            // app:begin
            let engine = SyncClient(
                document: try DocumentName("team/board-1"), user: UserInfo(name: "Ada", initials: "A", color: .black),
                replica: .random(), at: Timestamp(milliseconds: 0))
            let session = DocumentSession(engine: engine, url: url)
            session.start()  // connects, and reconnects with backoff until stop()

            // An edit shows at once and waits in the outbox until the server has it.
            try session.edit {
                try $0.perform(.place(.emoji("🦊", size: 48), at: Point(x: 120, y: 80)), at: session.now)
            }
            // app:end
            return session
        }

        @Test("the README's In your app code is the code these tests run")
        func readmeBlockMatchesThisFile() throws {
            let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
            let thisFile = try String(contentsOfFile: #filePath, encoding: .utf8)
            let blocks = ReadmeCode.swiftBlocks(in: readme, after: "## In your app")
            try #require(blocks.count == 1)
            let imports = [
                "EaselClient", "EaselClientURLSession", "EaselModel", "EaselProtocol", "EaselSync", "Foundation",
            ]
            let expected =
                imports.map { "import \($0)\n" }.joined() + "\n"
                + (ReadmeCode.section(of: thisFile, marker: "app") ?? "")
            #expect(blocks[0] == expected)
        }

        @Test(.disabled(if: Self.onLinux, Self.whyNotOnLinux))
        func aSessionOnURLSessionAndOneOnLibwebsocketsEditOneDocumentThroughTheRealServer() throws {
            let server = try ServerProcess(database: temporaryDatabase())
            defer { server.kill() }
            let url = try #require(URL(string: "ws://127.0.0.1:\(server.port)"))
            let loop = try ClientLoop()
            defer { loop.shutdown() }
            let other = try DocumentSession(
                engine: engine("bob", document: Self.document), url: url.absoluteString, loop: loop)
            other.start()
            defer { other.stop() }

            try withKnownIssueOnLinux {
                let ada = try openTheBoard(at: url)
                defer { ada.stop() }
                guard ada.wait(timeout: .seconds(10), until: { $0.connectionState == .connected }) else {
                    throw try whyURLSessionCannotConnect(to: url)
                }
                // The JSON encoding travels in text messages, the binary one in binary.
                let carol = try engine("carol", document: Self.document, encoding: .json)
                let json = DocumentSession(engine: carol, url: url)
                json.start()
                defer { json.stop() }
                try other.edit {
                    try $0.perform(.place(.emoji("🐻", size: 48), at: Point(x: 200, y: 80)), at: other.now)
                }
                try json.edit { try $0.perform(.place(.emoji("🐼", size: 48), at: Point(x: 280, y: 80)), at: json.now) }

                let sessions = [ada, other, json]
                for session in sessions {
                    #expect(
                        session.wait(timeout: .seconds(15)) {
                            $0.editor.document.visibleCount == 3 && $0.unacknowledged.isEmpty
                        })
                }
                #expect(Set(sessions.map { $0.read { $0.editor.document.stateHash } }).count == 1)
                #expect(ada.connectionsOpened == 1)
            }
        }

        @Test(.disabled(if: Self.onLinux, Self.whyNotOnLinux))
        func aConnectionThatCannotOpenIsReportedClosedExactlyOnceNeverOpenedAndSaysWhy() throws {
            // A port that was just a server's and now has nobody listening.
            let server = try ServerProcess(database: temporaryDatabase())
            let port = server.port
            server.kill()
            let url = try #require(URL(string: "ws://127.0.0.1:\(port)"))
            let transport = URLSessionTransport(url: url, subprotocol: WireProtocol.binarySubprotocol)
            let events = TransportEvents()
            transport.open(events)
            transport.send([1, 2, 3])
            #expect(events.wait(timeout: .seconds(10)) { $0.closed >= 1 })
            transport.close()
            // Time for a second report, were there one.
            Thread.sleep(forTimeInterval: 0.3)
            #expect(events.snapshot == TransportEvents.Counts(opened: 0, received: 0, closed: 1))
            #expect(transport.failure != nil)
        }

        @Test(.disabled(if: Self.onLinux, Self.whyNotOnLinux))
        func aTransportClosedBeforeOrWhileOpeningIsReportedClosedExactlyOnce() throws {
            // The discard port: nothing of ours listens there.
            let url = try #require(URL(string: "ws://127.0.0.1:9"))
            let closedFirst = URLSessionTransport(url: url, subprotocol: WireProtocol.binarySubprotocol)
            let closedWhileOpening = URLSessionTransport(url: url, subprotocol: WireProtocol.binarySubprotocol)
            let first = TransportEvents()
            let opening = TransportEvents()
            closedFirst.close()
            closedFirst.open(first)
            closedWhileOpening.open(opening)
            closedWhileOpening.close()
            closedWhileOpening.close()
            for events in [first, opening] {
                #expect(events.wait(timeout: .seconds(5)) { $0.closed >= 1 })
            }
            Thread.sleep(forTimeInterval: 0.3)
            for events in [first, opening] {
                #expect(events.snapshot == TransportEvents.Counts(opened: 0, received: 0, closed: 1))
            }
        }

        func engine(_ name: String, document: String, encoding: WireEncoding = .binary) throws -> SyncClient {
            SyncClient(
                document: try DocumentName(document),
                user: UserInfo(name: name, initials: String(name.prefix(1)), color: .black), replica: .random(),
                configuration: SyncClientConfiguration(encoding: encoding), at: Timestamp(milliseconds: 0))
        }

        /// What URLSession says when a bare transport to `url` fails to open.
        func whyURLSessionCannotConnect(to url: URL) throws -> ServerProcessError {
            let transport = URLSessionTransport(url: url, subprotocol: WireProtocol.binarySubprotocol)
            let events = TransportEvents()
            transport.open(events)
            defer { transport.close() }
            guard events.wait(timeout: .seconds(10), until: { $0.closed > 0 }) else {
                return ServerProcessError("URLSession neither connected nor failed within 10 s")
            }
            return ServerProcessError(
                "URLSession could not connect: \(transport.failure.map { "\($0)" } ?? "no error given")")
        }
    }

    /// Linux's URLSession speaks WebSocket through libcurl, and here neither
    /// Debian 12's libcurl nor the toolchain's FoundationNetworking was
    /// built with WebSockets (Docs/server.md): every connection fails with
    /// this reason. Where a connection succeeds the known issue goes
    /// unrecorded, and the test fails until this is updated.
    func withKnownIssueOnLinux(_ body: () throws -> Void) throws {
        #if canImport(FoundationNetworking)
            try withKnownIssue("URLSession here has no WebSockets (Docs/server.md)") {
                try body()
            } matching: { issue in
                issue.error.map { "\($0)".contains("WebSockets not supported by libcurl") } ?? false
            }
        #else
            try body()
        #endif
    }
#endif
