import Foundation

/// How a test shows that a README's code is the code it runs: the README's
/// ```swift blocks against marked lines of the test's own file.
public enum ReadmeCode {
    /// The ```swift blocks of the section under `heading` (up to the next
    /// `## ` heading), in order.
    public static func swiftBlocks(in markdown: String, after heading: String) -> [String] {
        guard var position = markdown.range(of: heading)?.upperBound else { return [] }
        let end = markdown.range(of: "\n## ", range: position..<markdown.endIndex)?.lowerBound ?? markdown.endIndex
        var blocks: [String] = []
        while let open = markdown.range(of: "```swift\n", range: position..<end),
            let close = markdown.range(of: "```", range: open.upperBound..<end)
        {
            blocks.append(String(markdown[open.upperBound..<close.lowerBound]))
            position = close.upperBound
        }
        return blocks
    }

    /// The lines between `// marker:begin` and `// marker:end`, less the
    /// begin marker's indentation.
    public static func section(of source: String, marker: String) -> String? {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard let begin = lines.firstIndex(where: { $0.hasSuffix("// \(marker):begin") }),
            let end = lines.firstIndex(where: { $0.hasSuffix("// \(marker):end") }), begin < end
        else { return nil }
        let indent = String(lines[begin].prefix { $0 == " " })
        return lines[(begin + 1)..<end].map { $0.hasPrefix(indent) ? String($0.dropFirst(indent.count)) : String($0) }
            .joined(separator: "\n") + "\n"
    }
}
