import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that several threads share, behind one lock.
///
/// `Synchronization.Mutex` underneath, plus one thing it lacks on Linux:
/// ThreadSanitizer cannot see it (it waits on futexes directly), so every
/// access it guards would be reported as a race and real races would drown
/// among them. When ThreadSanitizer is in the process, each turn tells it
/// the lock was taken and given back; otherwise that is one test of a
/// global.
///
/// `withLock` is inlinable so each caller gets it specialised for its own
/// value: called across modules unspecialised, each turn went through
/// generic metadata and value witnesses, about 900 instructions to append
/// a storage answer to the service thread's inbox (callgrind).
public final class Locked<Value: ~Copyable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    @inlinable
    public func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            guard let hooks = threadSanitizer else { return try body(&value) }
            let address = Unmanaged.passUnretained(self).toOpaque()
            hooks.acquire(address)
            defer { hooks.release(address) }
            return try body(&value)
        }
    }
}

extension Locked where Value: Copyable & Sendable {
    /// A copy of the value as it is now.
    public var value: Value { withLock { $0 } }
}

/// ThreadSanitizer's annotations, found at run time so that the library
/// needs no C and no special build: present only in a process built with
/// `-sanitize=thread`.
@usableFromInline struct ThreadSanitizerHooks: Sendable {
    @usableFromInline typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void
    @usableFromInline let acquire: Hook
    @usableFromInline let release: Hook

    init(acquire: Hook, release: Hook) {
        self.acquire = acquire
        self.release = release
    }
}

@usableFromInline let threadSanitizer: ThreadSanitizerHooks? = {
    #if canImport(Glibc) || canImport(Darwin)
        #if canImport(Darwin)
            let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let acquire = dlsym(everywhere, "__tsan_acquire"), let release = dlsym(everywhere, "__tsan_release")
        else {
            return nil
        }
        return ThreadSanitizerHooks(
            acquire: unsafeBitCast(acquire, to: ThreadSanitizerHooks.Hook.self),
            release: unsafeBitCast(release, to: ThreadSanitizerHooks.Hook.self))
    #else
        return nil
    #endif
}()

/// Whether the locks report to ThreadSanitizer in this process.
public var locksReportToThreadSanitizer: Bool { threadSanitizer != nil }
