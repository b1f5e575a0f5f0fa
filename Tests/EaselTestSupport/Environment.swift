#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads an environment variable (tests only: the model has no environment).
public func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// How many times longer than usual a test's waits and deadlines should be:
/// 1, or more when `Tests/Sanitizers/sanitize.sh` runs the suite (it sets
/// `EASEL_SANITIZER`), whose sanitized servers and bots run several times
/// slower (the whole suite took 51 minutes under ThreadSanitizer against 8.5).
public var sanitizerSlowdown: Double {
    switch environment("EASEL_SANITIZER") {
    case "thread": 6
    case "address": 3
    default: 1
    }
}

/// How many times more memory than usual a test should allow the servers
/// it starts: 1, or more under AddressSanitizer, whose redzones around every
/// allocation, shadow memory (an eighth of what is mapped) and quarantine
/// of freed memory (`Tests/Sanitizers/sanitize.sh` sets it to 32 MB) the
/// bounds were not set for. Every bound held under ThreadSanitizer as set.
public var sanitizerMemoryFactor: Double {
    environment("EASEL_SANITIZER") == "address" ? 2 : 1
}
