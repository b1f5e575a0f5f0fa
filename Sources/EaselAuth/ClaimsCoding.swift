import EaselProtocol
import EaselSync
import Foundation

/// Claims as compact JSON: `{"u": user, "d": document | "p": prefix,
/// "r": "edit" | "view", "x": expiry in seconds since 1970}`.
enum ClaimsCoding {
    private struct Wire: Codable {
        var u: String
        var d: String?
        var p: String?
        var r: String
        var x: Int64
    }

    static func encode(_ claims: AccessClaims) -> [UInt8] {
        var wire = Wire(u: claims.user, r: claims.role == .edit ? "edit" : "view", x: claims.expires)
        switch claims.documents {
        case .exactly(let name): wire.d = name.rawValue
        case .prefix(let prefix): wire.p = prefix
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings and integers cannot fail.
        return Array((try? encoder.encode(wire)) ?? Data())
    }

    static func decode(_ bytes: [UInt8]) -> AccessClaims? {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(bytes)), !wire.u.isEmpty else { return nil }
        let role: ConnectionIdentity.Role
        switch wire.r {
        case "edit": role = .edit
        case "view": role = .view
        default: return nil
        }
        let documents: DocumentScope
        switch (wire.d, wire.p) {
        case (let name?, nil):
            guard let document = try? DocumentName(name) else { return nil }
            documents = .exactly(document)
        case (nil, let prefix?):
            // As `issue` makes them: a folder, so no lookalike name is covered.
            guard prefix.isEmpty || prefix.hasSuffix("/") else { return nil }
            documents = .prefix(prefix)
        default:
            return nil
        }
        return AccessClaims(user: wire.u, documents: documents, role: role, expires: wire.x)
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648, section 5).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        guard let bytes = Data(base64Encoded: standard).map(Array.init) else { return nil }
        // One spelling per value: unused low bits of the last character
        // must be zero, so a token cannot be rewritten into another string
        // that still verifies.
        return encode(bytes) == text ? bytes : nil
    }
}
