/// The version of the Easel package, shown by `easel version`.
public enum EaselVersion {
    public static let current = "0.1.0"
}
