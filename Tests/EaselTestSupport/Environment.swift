#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads an environment variable (tests only: the model has no environment).
public func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
