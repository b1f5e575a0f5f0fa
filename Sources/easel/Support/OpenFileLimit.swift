import Foundation

/// The process's limit on open files, raised to the most it may have: a
/// load of thousands of sockets needs more than the usual 1,024.
enum OpenFileLimit {
    /// Raises the soft limit to the hard one; the limit now.
    @discardableResult
    static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, 1 << 30))
    }
}
