import EaselModel
import EaselProtocol
import Testing

/// Rules every client reads the same way (the page through the module).
@Suite("Client rules: blob answers, refused access, replica IDs")
struct ClientRuleTests {
    @Test("a blob answer's status says what failed and whether another try may help")
    func blobStatusesClassify() {
        for status in [200, 201, 204, 304] { #expect(BlobFailure(httpStatus: status) == nil, "\(status)") }
        #expect(BlobFailure(httpStatus: 404) == .notFound)
        #expect(BlobFailure(httpStatus: 401) == .notAllowed && BlobFailure(httpStatus: 403) == .notAllowed)
        for status in [400, 405, 413, 415] { #expect(BlobFailure(httpStatus: status) == .refused, "\(status)") }
        for status in [0, 408, 429, 500, 502, 503] {
            #expect(BlobFailure(httpStatus: status) == .unavailable, "\(status)")
        }
        let transient = BlobFailure.allCases.filter(\.isTransient)
        #expect(transient == [.corrupt, .unavailable], "busy, unreachable or corrupt in transit: worth another try")
    }

    @Test("only a refused token stops a client reconnecting: none, unreadable, expired or another document's")
    func refusedAccessCodes() {
        let refusing = ErrorCode.named.map(\.code).filter(\.refusesAccess)
        #expect(refusing == [.unauthorized, .tokenExpired, .wrongDocument])
    }

    @Test("a random replica is never 0, which the protocol reserves")
    func randomReplicaIsNeverZero() {
        struct Zeros: RandomNumberGenerator {
            var left = 3
            mutating func next() -> UInt64 {
                left -= 1
                return left >= 0 ? 0 : 42
            }
        }
        var generator = Zeros()
        #expect(ReplicaID.random(using: &generator) == ReplicaID(rawValue: 42))
    }
}
