import CEaselDiskFaults
import Foundation

/// The switches of the faulty SQLite VFS (Sources/CEaselDiskFaults), in a
/// file mapped by the server that runs on it and by the run that flips
/// them: `easel serve --disk-faults FILE` and `easel chaos disk`.
final class DiskFaults: @unchecked Sendable {
    // Sendable: every field behind the pointer is read and written
    // atomically by the C code.
    private let control: OpaquePointer

    enum File: Int32, CaseIterable, CustomStringConvertible {
        case ops = 0
        case blobs = 1

        var description: String { self == .ops ? "op log" : "blob file" }
    }

    enum Kind: UInt32, CaseIterable, CustomStringConvertible {
        /// Every write fails: a failing disk.
        case write = 1
        /// Every sync fails, and nothing is synced.
        case sync = 2
        /// Every write that would grow a file fails: a full disk.
        case full = 4

        var description: String {
            switch self {
            case .write: "write fails"
            case .sync: "sync fails"
            case .full: "disk full"
            }
        }
    }

    init(controlFile path: String) throws {
        guard let control = easel_disk_faults_open(path) else {
            throw DiskFaultsError(
                "cannot map the disk faults' switches at \(path): \(String(cString: strerror(errno)))")
        }
        self.control = control
    }

    /// Makes the faulty VFS SQLite's default in this process, before any
    /// database is opened, switched from `path`.
    static func install(controlFile path: String) throws {
        let faults = try DiskFaults(controlFile: path)
        let code = easel_disk_faults_install(faults.control)
        guard code == 0 else { throw DiskFaultsError("cannot install the disk faults' VFS: SQLite code \(code)") }
        // The VFS keeps the mapping for the life of the process.
        _ = Unmanaged.passRetained(faults)
    }

    /// Turns `kind` on for `file` (alone: any other fault there goes off).
    func inject(_ kind: Kind, into file: File) {
        easel_disk_faults_set_kinds(control, file.rawValue, kind.rawValue)
    }

    func clear() {
        for file in File.allCases { easel_disk_faults_set_kinds(control, file.rawValue, 0) }
    }

    /// While on, the server's writes wait in its memory for their sync, so
    /// a SIGKILL drops what a power cut would.
    func holdUnsyncedWrites(_ on: Bool) {
        easel_disk_faults_set_holding(control, on ? 1 : 0)
    }

    /// Calls failed so far by `kind` in `file`.
    func injected(_ kind: Kind, into file: File) -> UInt64 {
        easel_disk_faults_injected(control, file.rawValue, kind.rawValue)
    }

    /// What a power cut now would drop.
    var unsyncedBytes: UInt64 { easel_disk_faults_unsynced_bytes(control) }
}

struct DiskFaultsError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
