import EaselModel
import EaselProtocol
import EaselSync
import Testing

@testable import EaselServer

/// A connection's outgoing queue, without a socket: what the bound counts,
/// the order around a shared welcome still being encoded, and the welcome's
/// end.
@Suite struct OutgoingQueueTests {
    private func frame(_ count: Int) -> OutFrame { OutFrame([UInt8](repeating: 7, count: count)) }

    private func shared(number: UInt64 = 1) throws -> SharedWelcome {
        SharedWelcome(
            number: number,
            key: .init(
                document: try DocumentName("q/doc"), epoch: Epoch(rawValue: 1), position: 9, protocolVersion: 2, encoding: .binary,
                tailFrom: nil, opCount: 600))
    }

    @Test func ownFramesCountTowardTheBoundAndASharedWelcomeDoesNot() throws {
        var queue = OutgoingQueue()
        let welcome = try shared()
        welcome.finish([frame(1_000_000)])
        queue.append(welcome)
        queue.append(frame(300), endsWelcome: true)
        queue.append(frame(20))
        #expect(queue.ownedBytes == 320)
        #expect(queue.next()?.count == 1_000_000)
        queue.removeNext()
        #expect(queue.ownedBytes == 320)
        queue.removeNext()
        #expect(queue.ownedBytes == 20)
    }

    @Test func nothingPassesASharedWelcomeStillBeingEncoded() throws {
        var queue = OutgoingQueue()
        let welcome = try shared()
        queue.append(welcome)
        queue.append(frame(5), endsWelcome: true)
        queue.append(frame(6))
        #expect(queue.next() == nil)
        #expect(!queue.isEmpty)
        welcome.finish([frame(1), frame(2)])
        var order: [Int] = []
        while let next = queue.next() {
            order.append(next.count)
            queue.removeNext()
        }
        #expect(order == [1, 2, 5, 6])
        #expect(queue.isEmpty)
    }

    @Test func theWelcomeIsAwaitedUntilItsLastFrameIsWritten() {
        var queue = OutgoingQueue()
        #expect(!queue.awaitsWelcome)
        queue.append(frame(10))
        queue.append(frame(11), endsWelcome: true)
        #expect(queue.awaitsWelcome)
        queue.removeNext()
        #expect(queue.awaitsWelcome)
        queue.removeNext()
        #expect(!queue.awaitsWelcome)
    }

    @Test func droppingTheQueueKeepsAFramePartlyWrittenSoTheStreamStaysWhole() {
        var queue = OutgoingQueue()
        queue.append(frame(100_000))
        queue.append(frame(50))
        _ = queue.next()
        queue.writtenOfHead = 40_000
        queue.removeAll()
        #expect(queue.next()?.count == 100_000)
        #expect(queue.writtenOfHead == 40_000)
        queue.removeNext()
        #expect(queue.isEmpty)
        #expect(queue.ownedBytes == 0)

        var untouched = OutgoingQueue()
        untouched.append(frame(100_000))
        untouched.removeAll()
        #expect(untouched.isEmpty)
        #expect(!untouched.awaitsWelcome)
    }
}
