import Foundation

/// The Python packages the peers run on, in a virtual environment of their
/// own outside git (made, and filled with pip, the first time).
struct PythonPeers {
    let folder: URL
    /// Import name → pip name.
    static let packages = [
        ("loro", "loro"), ("pycrdt", "pycrdt"), ("pycrdt.websocket", "pycrdt-websocket"), ("websockets", "websockets"),
    ]

    /// Makes the environment if it is missing and installs what it lacks;
    /// the packages that still cannot be imported, by pip name.
    func prepare() -> [String] {
        if !FileManager.default.isExecutableFile(atPath: python) {
            guard run(["python3", "-m", "venv", folder.path]) else {
                return Self.packages.map(\.1)
            }
        }
        let missing = Self.packages.filter { !run([python, "-c", "import \($0.0)"], quiet: true) }
        if !missing.isEmpty {
            report("installing \(missing.map(\.1).joined(separator: ", ")) into \(folder.path)")
            _ = run([python, "-m", "pip", "install", "--quiet"] + missing.map(\.1))
        }
        return Self.packages.filter { !run([python, "-c", "import \($0.0)"], quiet: true) }.map(\.1)
    }

    /// The environment's Python, which the peers run on.
    var python: String { folder.appendingPathComponent("bin/python3").path }

    private func run(_ arguments: [String], quiet: Bool = false) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if quiet {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
