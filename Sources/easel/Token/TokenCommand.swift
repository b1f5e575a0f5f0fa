import ArgumentParser
import EaselAuth
import EaselProtocol
import EaselSync
import Foundation

struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an access token for a server started with the same secret.",
        discussion: """
            The token names a user (what storage records as the author of their \\
            ops), a document or a folder of documents, a role and an expiry. It \\
            goes in the client's hello. Example:

              easel token --secret "$EASEL_SECRET" --user ada --doc boards/one --role edit --ttl 1h
            """)

    @Option(help: "The server's secret; EASEL_SECRET is read when it is not given.")
    var secret: String?

    @Option(help: "Who the token is for: recorded as the author of each op they push.")
    var user: String

    @Option(help: "The one document the token covers.")
    var doc: String?

    @Option(help: "Instead of --doc: every document in this folder (ending with /; \"\" for all).")
    var docPrefix: String?

    @Option(help: "edit (push ops) or view (receive everything, share presence, never push).")
    var role: TokenRole

    @Option(help: "How long the token lasts: a number and s, m, h or d (30m, 1h, 7d).")
    var ttl: TimeToLive = TimeToLive(seconds: 3600)

    func validate() throws {
        guard (doc == nil) != (docPrefix == nil) else {
            throw ValidationError("give exactly one of --doc and --doc-prefix")
        }
    }

    func run() throws {
        guard let secret = serverSecret(given: secret), !secret.isEmpty else {
            throw ValidationError("no secret: pass --secret or set EASEL_SECRET")
        }
        let documents: DocumentScope
        if let doc {
            do {
                documents = .exactly(try DocumentName(doc))
            } catch {
                throw ValidationError("--doc: \(error.detail)")
            }
        } else {
            documents = .prefix(docPrefix ?? "")
        }
        let expires = Int64(Date().timeIntervalSince1970) + ttl.seconds
        do {
            let authority = try TokenAuthority(secret: secret)
            print(
                try authority.issue(AccessClaims(user: user, documents: documents, role: role.role, expires: expires)))
        } catch {
            throw CommandError(error.description)
        }
    }
}

enum TokenRole: String, ExpressibleByArgument, CaseIterable {
    case edit, view

    var role: ConnectionIdentity.Role { self == .edit ? .edit : .view }
}

/// A token's lifetime as written on the command line: `90s`, `30m`, `1h`, `7d`.
struct TimeToLive: ExpressibleByArgument {
    var seconds: Int64

    init(seconds: Int64) {
        self.seconds = seconds
    }

    init?(argument: String) {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let unit = argument.last.flatMap({ units[$0] }), let count = Int64(argument.dropLast()), count > 0,
            count <= 3650 * 86400 / unit
        else { return nil }
        seconds = count * unit
    }

    var defaultValueDescription: String { "\(seconds)s" }
}
