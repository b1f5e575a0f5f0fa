import EaselHTTP
@testable import EaselServer
import Testing

/// The first request's head, judged before libwebsockets sees it.
@Suite struct RequestHeadTests {
    private func check(_ text: String) -> RequestHead.Verdict { RequestHead.check(Array(text.utf8)) }

    @Test func aWholeOrdinaryHeadPassesAndSaysWhereItEnds() {
        let head = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(check(head + "body") == .complete(length: head.utf8.count))
        #expect(check("GET / HTTP/1.0\r\n\r\n") == .complete(length: 18))
    }

    @Test func aHeadArrivingAPieceAtATimeIsNeverRefusedEarly() {
        let head = "PUT /blobs/abc?doc=a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n"
        for end in 0..<head.utf8.count - 1 {
            #expect(RequestHead.check(Array(head.utf8.prefix(end))) == .incomplete, "after \(end) bytes")
        }
    }

    @Test func aNulByteRawOrPercentEncodedIs400() {
        #expect(RequestHead.check(Array("GET /a".utf8) + [0] + Array("b HTTP/1.1\r\n\r\n".utf8)) == .refused(.nulByte))
        #expect(check("GET /a%00b HTTP/1.1\r\n\r\n") == .refused(.nulByte))
        #expect(RequestHead.check(Array("GET / HTTP/1.1\r\nX: a".utf8) + [0]) == .refused(.nulByte))
    }

    @Test func aBodyAfterTheHeadMayHoldAnyByte() {
        let head = Array("PUT /blobs/a?doc=b HTTP/1.1\r\nContent-Length: 4\r\n\r\n".utf8)
        #expect(RequestHead.check(head + [0, 0x25, 0x30, 0x30]) == .complete(length: head.count))
    }

    @Test func aRequestLineOverTheLimitIs414EvenBeforeItEnds() {
        let path = String(repeating: "a", count: RequestHead.lineLimit)
        #expect(check("GET /\(path) HTTP/1.1\r\n\r\n") == .refused(.lineTooLong))
        #expect(check("GET /\(path)") == .refused(.lineTooLong))
        let fits = "GET /\(path.dropLast(20)) HTTP/1.1\r\n\r\n"
        #expect(check(fits) == .complete(length: fits.utf8.count))
    }

    @Test func headersOverTheLimitAre431WhetherOrNotTheyEnded() {
        let big = String(repeating: "b", count: RequestHead.headLimit)
        #expect(check("GET / HTTP/1.1\r\nX: \(big)\r\n\r\n") == .refused(.headTooLarge))
        #expect(check("GET / HTTP/1.1\r\nX: \(big)") == .refused(.headTooLarge))
    }

    @Test func bytesThatAreNotAnHTTPRequestAre400() {
        #expect(RequestHead.check([0x16, 0x03, 0x01, 0x00]) == .refused(.notHTTP))
        #expect(check("get / HTTP/1.1\r\n\r\n") == .refused(.notHTTP))
        #expect(check("GET / SPDY/3\r\n\r\n") == .refused(.notHTTP))
        #expect(check("GET\r\n\r\n") == .refused(.notHTTP))
    }
}
