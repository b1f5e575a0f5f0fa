import Foundation
import Testing

/// The spec checked by code nobody here wrote, so Protocol/README.md and
/// the Swift codecs cannot drift apart silently: Python's jsonschema
/// validates every JSON vector against Protocol/schema, and a Python
/// decoder written from the spec alone reads every binary vector, compares
/// it with its JSON twin, and gives each invalid vector its code.
@Suite("Outside check")
struct OutsideCheckTests {
    static let checker = VectorFiles.root.deletingLastPathComponent().appendingPathComponent("tools/check_vectors.py")

    @Test func anIndependentPythonDecoderAndJSONSchemaAgreeWithEveryVector() throws {
        _ = VectorFiles.prepared
        let (status, output) = try Self.python([
            Self.checker.path, VectorFiles.root.appendingPathComponent("index.json").path,
        ])
        #expect(status == 0, "\(output)")
        let summary =
            "checked \(ValidVectors.all.count) valid vectors (binary decoded and compared, JSON schema-valid), "
            + "\(InvalidVectors.all.count) invalid vectors, the state hash and emoji key: 0 failures"
        #expect(output.contains(summary), "\(output)")
        print(output.split(separator: "\n").last ?? "")
    }

    @Test func thePythonDecoderPassesItsOwnHandBuiltCasesFromTheSpec() throws {
        let (status, output) = try Self.python([Self.checker.path, "--self-test"])
        #expect(status == 0, "\(output)")
    }

    private static func python(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
