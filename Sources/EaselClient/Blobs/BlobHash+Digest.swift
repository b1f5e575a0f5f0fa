import Crypto
import EaselModel

extension BlobHash {
    /// The SHA-256 of these bytes: the name they are stored under.
    public init(digesting bytes: [UInt8]) {
        self.init(bytes: Array(SHA256.hash(data: bytes)))
    }
}
