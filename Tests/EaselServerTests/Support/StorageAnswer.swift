import EaselLocking
import EaselSync
import EaselTestSupport
import Foundation
import Testing

/// Waits for a storage port's answer, whatever thread it comes on (at most
/// 10 s): what the contract suites call every port through.
func storageAnswer<T: Sendable>(_ call: (@escaping @Sendable (Result<T, StorageFailure>) -> Void) -> Void) throws
    -> Result<T, StorageFailure>
{
    let result = Locked<Result<T, StorageFailure>?>(nil)
    let done = DispatchSemaphore(value: 0)
    call { answer in
        result.withLock { $0 = answer }
        done.signal()
    }
    guard done.wait(timeout: .now() + 10) == .success else { throw ServerProcessError("storage never answered") }
    return try #require(result.withLock { $0 })
}
