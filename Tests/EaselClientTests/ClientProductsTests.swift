import EaselTestSupport
import Foundation
import Testing

/// What an app links when it takes the client: the engine and its
/// URLSession transport need no system library, so libwebsockets and SQLite
/// stay with the bots, the tests and the server; of other packages they
/// take swift-crypto alone (SHA-256 for the blob caches), which is
/// CryptoKit on Apple platforms and builds its own C elsewhere. A build on this machine could
/// not show that (libwebsockets is installed here), so these read the
/// package as SwiftPM does and the sources as the compiler would.
@Suite("Client products")
struct ClientProductsTests {
    static let appTargets = ["EaselClient", "EaselClientURLSession"]
    static let graph = Result { try PackageGraph.load() }

    @Test func theClientAndItsURLSessionTransportDependOnNoSystemLibraryAndNoPackageButSwiftCrypto() throws {
        let graph = try Self.graph.get()
        for name in Self.appTargets {
            let closure = try graph.closure(of: name)
            #expect(closure.filter { $0.type != "regular" }.map(\.name) == [], "\(name)")
            #expect(Set(closure.flatMap(\.products)) == ["swift-crypto/Crypto"], "\(name)")
        }
        // The check does see a system library where there is one.
        let transport = try graph.closure(of: "EaselClientLWS")
        #expect(transport.contains { $0.name == "CLibWebSockets" && $0.type == "system" })
    }

    @Test func theClientTargetsAreSwiftOnlyAndImportOnlyWhatTheyDependOnOrTheToolchainShips() throws {
        let graph = try Self.graph.get()
        // The C libraries here are the toolchain's own overlays of the platform's libc.
        let toolchain: Set = [
            "Foundation", "FoundationNetworking", "Dispatch", "Synchronization", "Glibc", "Musl", "Darwin", "WASILibc",
        ]
        for name in Self.appTargets {
            let closure = try graph.closure(of: name)
            let allowed = toolchain.union(closure.map(\.name)).union(closure.flatMap(\.products).map { String($0.split(separator: "/").last ?? "") })
            for target in closure {
                let files = try sourceFiles(under: target.path)
                #expect(!files.isEmpty, "\(target.name) has no sources at \(target.path)")
                for file in files {
                    guard file.pathExtension == "swift" else {
                        Issue.record("\(file.path) is not Swift: a C file would need a C toolchain and headers")
                        continue
                    }
                    let text = try String(contentsOf: file, encoding: .utf8)
                    for module in importedModules(in: text) where !allowed.contains(module) {
                        Issue.record("\(file.path) imports \(module), which \(name) does not depend on")
                    }
                }
            }
        }
    }

    @Test func anImportOfLibWebSocketsIsSeenWhateverItsAttributes() {
        let source = """
            import EaselModel
            @preconcurrency internal import CLibWebSockets
                import struct Foundation.Data
            // import Commented
            """
        #expect(importedModules(in: source) == ["EaselModel", "CLibWebSockets", "Foundation"])
    }

    func sourceFiles(under path: String) throws -> [URL] {
        let folder = packageRoot.appendingPathComponent(path)
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        else { throw GraphError("cannot list \(folder.path)") }
        return walk.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }
}

/// The modules a Swift source imports: `import X`, `import struct X.Y`,
/// with any attributes or access level before it.
func importedModules(in source: String) -> [String] {
    let kinds: Set = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
    let modifiers: Set = ["public", "package", "internal", "fileprivate", "private"]
    return source.split(separator: "\n").compactMap { line in
        var words = line.split(separator: " ").drop { $0.hasPrefix("@") || modifiers.contains(String($0)) }
        guard words.first == "import" else { return nil }
        words = words.dropFirst().drop { kinds.contains(String($0)) }
        return words.first.flatMap { $0.split(separator: ".").first }.map(String.init)
    }
}
