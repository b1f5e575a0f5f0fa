import ArgumentParser
import Foundation

/// A peer's benchmark script kept running, answering one JSON line for each
/// line it is sent: so Easel and the peer can be timed in turn, a merge
/// each, and a slow spell of a shared machine falls on both.
final class PeerProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    private let name: String

    init(_ arguments: [String], name: String) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// The next line the peer prints, as a JSON object.
    func readObject() throws -> [String: Any] {
        while !buffered.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw ValidationError("\(name) ended early: \(String(decoding: buffered, as: UTF8.self))")
            }
            buffered.append(contentsOf: chunk)
        }
        let end = buffered.firstIndex(of: UInt8(ascii: "\n")) ?? buffered.endIndex
        let line = Array(buffered[..<end])
        buffered.removeSubrange(...end)
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw ValidationError("\(name) printed \(String(decoding: line, as: UTF8.self))")
        }
        return object
    }

    /// Sends one line and reads the answer.
    func request(_ line: String) throws -> [String: Any] {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        return try readObject()
    }

    /// Ends the peer's input and waits for it to exit.
    func finish() throws {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("\(name) exited with \(process.terminationStatus)")
        }
    }
}
