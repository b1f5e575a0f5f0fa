import EaselModel

/// The protocol's limits (Protocol/README.md, section 8). A server may set
/// lower ones; no decoder accepts more.
public enum ProtocolLimits {
    /// Longest message in either encoding.
    public static let messageBytes = 1 << 20
    public static let opsPerPush = 4096
    /// Most ops in one `ops` or `welcome` message.
    public static let opsPerMessage = 65_536
    public static let documentNameBytes = 128
    public static let tokenBytes = 4096
    public static let userNameBytes = 64
    public static let initialsBytes = 16
    public static let errorMessageBytes = 1024
    /// Most entities in a presence selection or gesture preview.
    public static let entitiesInPresence = 1024
    /// Most points in a drawing preview.
    public static let previewPoints = 1024
    public static let peersInWelcome = 1024
    public static let jsonDepth = 16
    /// Presence messages a connection may send a second.
    public static let presencePerSecond = 20
    /// Fields in one create: each field at most once.
    public static let fieldsPerCreate = FieldID.allCases.count
}
