import EaselTestSupport
import Foundation

/// The package's targets and what each depends on, as SwiftPM itself reads
/// Package.swift (`swift package dump-package`), not as a test parses it.
struct PackageGraph {
    struct Target {
        var name: String
        var type: String
        /// The folder of its sources, from the package root.
        var path: String
        var targets: [String]
        /// Products of other packages, as "package/product".
        var products: [String]
    }

    var targets: [String: Target]

    /// Runs SwiftPM on the package. A scratch folder of its own keeps it off
    /// the lock `swift test` holds on `.build`.
    static func load() throws -> PackageGraph {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("easel-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "--package-path", packageRoot.path, "--scratch-path", scratch.path, "dump-package",
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let list = object["targets"] as? [[String: Any]]
        else {
            throw GraphError("swift package dump-package failed: \(String(decoding: stderr, as: UTF8.self))")
        }
        var targets: [String: Target] = [:]
        for entry in list {
            guard let name = entry["name"] as? String, let type = entry["type"] as? String else {
                throw GraphError("a target without a name or type: \(entry)")
            }
            var target = Target(
                name: name, type: type, path: entry["path"] as? String ?? "Sources/\(name)", targets: [],
                products: [])
            for dependency in entry["dependencies"] as? [[String: Any]] ?? [] {
                if let named = (dependency["byName"] ?? dependency["target"]) as? [Any],
                    let first = named.first as? String
                {
                    target.targets.append(first)
                } else if let product = dependency["product"] as? [Any], let name = product.first as? String {
                    target.products.append("\(product.dropFirst().first as? String ?? "?")/\(name)")
                } else {
                    throw GraphError("a dependency of \(name) this test cannot read: \(dependency)")
                }
            }
            targets[name] = target
        }
        return PackageGraph(targets: targets)
    }

    /// `name` and every target it depends on, directly or not.
    func closure(of name: String) throws -> [Target] {
        var seen: Set<String> = []
        var order: [Target] = []
        var pending = [name]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            guard let target = targets[next] else { throw GraphError("no target named \(next)") }
            order.append(target)
            pending += target.targets
        }
        return order
    }
}

struct GraphError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
