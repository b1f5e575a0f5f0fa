import Foundation

/// The package's root folder.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// An executable this package builds, found beside the test bundle or in
/// `.build/debug`, for tests that run it as a child process.
public func builtExecutable(_ name: String) throws -> URL {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [here, here.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")]
    for folder in candidates {
        let url = folder.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw MissingExecutable(name: name, searched: candidates.map(\.path))
}

public struct MissingExecutable: Error, CustomStringConvertible {
    public var name: String
    public var searched: [String]

    public var description: String { "\(name) is not built; looked in \(searched)" }
}
