#if !hasFeature(Embedded)
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// The time a host tells the sans-IO server, one definition for every
    /// host (`easel serve`, `InProcessServer`): the wall clock as it read
    /// when the clock was made, advanced by a monotonic clock since. Ops
    /// record about when they were received, and the rooms' timers never
    /// stall or leap when someone sets the wall clock. Hosts take it as a
    /// parameter, so a test may hand them another.
    public struct HostClock: Sendable {
        private let startWall: Int64
        private let startInstant: ContinuousClock.Instant

        /// The process's clock, started at its first use.
        public static let system = HostClock()

        public init() {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            startWall = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
            startInstant = .now
        }

        public var now: Timestamp {
            let elapsed = ContinuousClock.now - startInstant
            return Timestamp(milliseconds: startWall + elapsed.wholeMilliseconds)
        }
    }
#endif
