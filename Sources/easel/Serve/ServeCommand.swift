import ArgumentParser
import EaselServer
import EaselStore
import Foundation

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve documents to collaborating clients over WebSockets.",
        discussion: """
            Clients connect to ws://HOST:PORT and name their document in their hello \
            (Protocol/README.md). Ops are stored in the SQLite file given by --db. \
            SIGINT or SIGTERM stops the server cleanly: every connection is closed \
            with 1001 and storage is flushed.
            """)

    @Option(help: "The address to listen on. Until authentication arrives, loopback only.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 lets the system choose one.")
    var port = 8080

    @Option(help: "The SQLite database file (created when missing).")
    var db = "./easel.db"

    @Option(help: "full: every acknowledged op survives power loss; normal: it survives a crash of the process.")
    var durability: Durability = .full

    func run() throws {
        var options = ServeOptions()
        options.host = host
        options.port = port
        options.databasePath = db
        options.durability = durability
        // Signals are taken by one thread that asks the server to stop;
        // every other thread, made after this, inherits the block.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let server: EaselServer
        do {
            server = try EaselServer(options: options)
        } catch {
            throw CommandError(error.description)
        }
        let waited = signals
        let waiter = Thread {
            var signals = waited
            var signal: Int32 = 0
            sigwait(&signals, &signal)
            server.stop()
        }
        waiter.start()
        // Written straight to the file descriptor: a test or a supervisor
        // waits for this line, so it must not sit in a buffer.
        announce("easel: serving \(server.url) (database \(db), durability \(durability.rawValue))")
        server.run()
        announce("easel: stopped")
    }

    private func announce(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

extension Durability: ExpressibleByArgument {}
