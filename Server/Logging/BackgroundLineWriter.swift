import EaselLocking
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes log lines to a file descriptor from a thread of its own, so the
/// thread that logs (the service thread, for every connection opened and
/// closed) never waits on the log's reader: a pipe to a supervisor that
/// stops reading fills in 64 KiB, and a blocking write there would stop
/// every connection with it. Lines wait in a queue of up to `bound` bytes
/// (beside the batch being written); past it they are dropped and
/// counted, and a line saying how many follows the lines queued before
/// them (`notice`). Lines still queued when the process crashes or is
/// killed are lost; an exit writes them.
final class BackgroundLineWriter: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var dropped = 0
        var flushes: [DispatchSemaphore] = []
    }

    private let descriptor: Int32
    private let bound: Int
    private let notice: @Sendable (_ dropped: Int) -> String
    private let state = Locked(State())
    private let ready = DispatchSemaphore(value: 0)

    /// Every writer made, so that the process's exit can flush them.
    private static let live = Locked<[BackgroundLineWriter]>([])

    init(descriptor: Int32, bound: Int = 1 << 20, notice: @escaping @Sendable (_ dropped: Int) -> String) {
        self.descriptor = descriptor
        self.bound = bound
        self.notice = notice
        let first = Self.live.withLock { live in
            live.append(self)
            return live.count == 1
        }
        if first { atexit { BackgroundLineWriter.flushAll() } }
        let thread = Thread { [self] in
            // It may be made before `easel serve` blocks SIGINT and SIGTERM
            // for the thread that waits for them: a signal the kernel gave
            // this thread would end the process instead of stopping it.
            var all = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_SETMASK, &all, nil)
            // Set from the thread itself: only then does Foundation name it
            // where `/proc` and `top -H` look.
            Thread.current.name = Self.threadName
            run()
        }
        thread.start()
    }

    /// The thread's name, as `top -H` and `/proc` show it.
    static let threadName = "easel-log"

    /// Queues a line (newline included), or counts it as dropped when the
    /// queue is full; never waits for the reader.
    func write(_ line: String) {
        let wasIdle = state.withLock { state -> Bool in
            let wasIdle = state.pending.isEmpty && state.dropped == 0 && state.flushes.isEmpty
            // Once one is dropped, the rest are until the thread takes the
            // queue, so the warning follows exactly the lines before the gap.
            if state.dropped > 0 || state.pending.count + line.utf8.count > bound {
                state.dropped += 1
            } else {
                state.pending.append(contentsOf: line.utf8)
            }
            return wasIdle
        }
        if wasIdle { ready.signal() }
    }

    /// Waits until every line queued before it is written, or `timeout`
    /// seconds, so a reader that never reads cannot hold an exit.
    func flush(timeout: Double = 2) {
        let done = DispatchSemaphore(value: 0)
        state.withLock { $0.flushes.append(done) }
        ready.signal()
        _ = done.wait(timeout: .now() + timeout)
    }

    static func flushAll() {
        for writer in live.withLock({ $0 }) { writer.flush() }
    }

    private func run() {
        while true {
            ready.wait()
            while true {
                let (bytes, dropped, flushes) = state.withLock { state in
                    defer {
                        state.pending = []
                        state.dropped = 0
                        state.flushes = []
                    }
                    return (state.pending, state.dropped, state.flushes)
                }
                if bytes.isEmpty && dropped == 0 && flushes.isEmpty { break }
                writeAll(bytes)
                if dropped > 0 { writeAll(Array(notice(dropped).utf8)) }
                for flush in flushes { flush.signal() }
            }
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && errno == EAGAIN {
                // A standard error inherited non-blocking: wait until it takes more.
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 100)
            } else {
                // A closed or broken log: nothing more can be said there.
                return
            }
        }
    }
}
