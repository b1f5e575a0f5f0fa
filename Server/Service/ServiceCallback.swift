import CLibWebSockets

/// The one callback lws calls for every protocol: it finds the host through
/// the context's user pointer and hands the event over.
func easelServiceCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let host = lws_context_user(context) else { return 0 }
    return Unmanaged<ServiceHost>.fromOpaque(host).takeUnretainedValue()
        .handle(wsi, reason, session: user, input: input, length: length)
}
