import EaselLocking
import Foundation
import Testing

@testable import EaselServer

#if canImport(Glibc)
    import Glibc
#endif

/// The server's log goes through a thread of its own: the thread that logs
/// never waits on the log's reader, lines stay whole and in order, and what
/// a stalled reader costs is said, not silently lost.
@Suite struct BackgroundLineWriterTests {
    /// A pipe: (read end, write end).
    func pipe() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        try #require(Glibc.pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    /// Reads the pipe to its end on a thread of its own.
    func readAll(_ descriptor: Int32) -> () -> String {
        let read = Locked<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                read.withLock { $0 += buffer[..<count] }
            }
            done.signal()
        }.start()
        return {
            done.wait()
            return String(decoding: read.value, as: UTF8.self)
        }
    }

    @Test func linesFromManyThreadsArriveWholeAndEachThreadsInOrder() throws {
        let (readEnd, writeEnd) = try pipe()
        defer { close(readEnd) }
        let writer = BackgroundLineWriter(descriptor: writeEnd) { "dropped \($0)\n" }
        let finish = readAll(readEnd)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<500 {
                writer.write("thread \(thread) line \(index) \(String(repeating: "x", count: 80))\n")
            }
        }
        writer.flush(timeout: 60)
        close(writeEnd)
        let lines = finish().split(separator: "\n")
        #expect(lines.count == 2_000)
        for thread in 0..<4 {
            let own = lines.filter { $0.hasPrefix("thread \(thread) ") }
            #expect(own.map { Int($0.split(separator: " ")[3]) } == Array(0..<500), "thread \(thread)")
        }
        #expect(lines.allSatisfy { $0.hasSuffix(String(repeating: "x", count: 80)) })
    }

    @Test(.timeLimit(.minutes(1)))
    func aReaderThatStallsNeverBlocksTheLoggerAndTheLinesDroppedAreCountedInALine() throws {
        let (readEnd, writeEnd) = try pipe()
        defer { close(readEnd) }
        let writer = BackgroundLineWriter(descriptor: writeEnd, bound: 64 << 10) { "dropped \($0)\n" }
        // Nobody reads yet: the pipe takes 64 KiB, the queue 64 KiB more;
        // the rest is dropped, all but what the queue takes while the pipe
        // still does.
        let sent = (0..<10_000).map { "line \($0) \(String(repeating: "y", count: 90))\n" }
        for line in sent { writer.write(line) }

        let finish = readAll(readEnd)
        writer.flush(timeout: 60)
        close(writeEnd)
        // Lines go in order; a run of dropped ones is counted in a line
        // right after the last line queued before them, so every line's
        // number is the one after the last plus the drops said between.
        var next = 0
        var dropped = 0
        var droppedInAll = 0
        for line in finish().split(separator: "\n") {
            if line.hasPrefix("dropped ") {
                let count = Int(line.dropFirst("dropped ".count)) ?? 0
                dropped += count
                droppedInAll += count
                continue
            }
            let number = Int(line.split(separator: " ")[1]) ?? -1
            #expect(number == next + dropped, "line \(number) after \(next - 1) with \(dropped) said dropped")
            next = number + 1
            dropped = 0
        }
        #expect(next + dropped == sent.count, "the last line \(next - 1), then \(dropped) said dropped")
        // The queue alone takes 648 of these lines.
        #expect(droppedInAll > 0 && sent.count - droppedInAll >= 600, "\(droppedInAll) dropped")
    }

    @Test(.timeLimit(.minutes(1)))
    func aLineIsWrittenWithoutWaitingForAnother() throws {
        let (readEnd, writeEnd) = try pipe()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        let writer = BackgroundLineWriter(descriptor: writeEnd) { "dropped \($0)\n" }
        for line in ["first\n", "second\n"] {
            writer.write(line)
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
            #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == line)
        }
    }

    /// `easel serve` blocks SIGINT and SIGTERM in every thread but the one
    /// that waits for them; the log's thread may be made before, and a
    /// signal given to it would end the process instead of stopping it.
    @Test func theLogsThreadTakesNoSignal() throws {
        let (readEnd, writeEnd) = try pipe()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        // Made from a thread that takes the signals, whose mask a new
        // thread inherits (the test runner's own may block them already).
        let made = DispatchSemaphore(value: 0)
        let writer = Locked<BackgroundLineWriter?>(nil)
        Thread {
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGINT)
            sigaddset(&signals, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            writer.withLock { $0 = BackgroundLineWriter(descriptor: writeEnd) { "dropped \($0)\n" } }
            made.signal()
        }.start()
        made.wait()
        // Answered by the thread itself, which names itself first: the
        // default 2 s ran out on a loaded CI machine before it ran at all.
        try #require(writer.withLock { $0 }).flush(timeout: 60)
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        let logThreads = tasks.filter { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))
                == BackgroundLineWriter.threadName + "\n"
        }
        #expect(!logThreads.isEmpty)
        for task in logThreads {
            let status = try String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
            let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
                .flatMap { UInt64($0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
            let wanted: UInt64 = 1 << (UInt64(SIGINT) - 1) | 1 << (UInt64(SIGTERM) - 1)
            #expect(blocked.map { $0 & wanted == wanted } == true, "thread \(task): \(String(describing: blocked))")
        }
    }

    @Test func theTextLogSaysHowManyLinesWereDroppedAsALogLine() {
        let line = LineLogHandler.line(
            format: .text, level: .warning, message: "log lines dropped", fields: [("count", "12")])
        #expect(line.hasSuffix(" warning log lines dropped count=12\n"), "\(line)")
    }
}
