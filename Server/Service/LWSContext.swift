import CLibWebSockets
import EaselHTTP
import EaselProtocol
import Foundation

/// The libwebsockets context the service thread runs: the protocols (plain
/// HTTP, and the collaboration protocol in both encodings), the vhost, and
/// the C memory lws keeps pointers into for the context's lifetime. It does
/// not listen: the front door accepts and `adopt` hands connections over.
/// It runs on a libev loop (epoll) of its own, a turn at a time.
final class LWSContext {
    private let context: OpaquePointer
    private let loop: UnsafeMutableRawPointer
    /// lws reads the loop from here while the context starts.
    private let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let vhost: OpaquePointer
    private let cStrings: [UnsafeMutablePointer<CChar>]
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let vhostOptions: UnsafeMutablePointer<lws_protocol_vhost_options>

    /// `user` comes back to `easelServiceCallback` through
    /// `lws_context_user`; `writeBytes` is the most one write hands lws.
    init(user: UnsafeMutableRawPointer, writeBytes: Int) throws(ServeError) {
        var strings: [UnsafeMutablePointer<CChar>] = []
        func cString(_ string: String) -> UnsafeMutablePointer<CChar>? {
            let copy = strdup(string)
            if let copy { strings.append(copy) }
            return copy
        }
        // protocols[0] takes plain HTTP; the collaboration protocol is the
        // vhost default, so a client naming no subprotocol still gets it.
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 4)
        protocols.initialize(repeating: lws_protocols(), count: 4)
        self.protocols = protocols
        protocols[0].name = UnsafePointer(cString("http"))
        protocols[0].callback = easelServiceCallback
        for (index, name) in [(1, WireProtocol.binarySubprotocol), (2, WireProtocol.jsonSubprotocol)] {
            protocols[index].name = UnsafePointer(cString(name))
            protocols[index].callback = easelServiceCallback
            protocols[index].per_session_data_size = MemoryLayout<UInt64>.size
            protocols[index].rx_buffer_size = 4096
            protocols[index].tx_packet_size = writeBytes
        }

        let options = UnsafeMutablePointer<lws_protocol_vhost_options>.allocate(capacity: 2)
        options.initialize(repeating: lws_protocol_vhost_options(), count: 2)
        vhostOptions = options
        options[1].name = UnsafePointer(cString("default"))
        options[1].value = UnsafePointer(cString("1"))
        options[0].name = UnsafePointer(cString(WireProtocol.binarySubprotocol))
        options[0].value = UnsafePointer(cString(""))
        options[0].options = UnsafePointer(options + 1)

        guard let loop = easel_ev_loop_new() else {
            protocols.deallocate()
            options.deallocate()
            throw ServeError("cannot start an event loop (libev)")
        }
        let foreignLoops = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
        foreignLoops.initialize(to: loop)

        var info = lws_context_creation_info()
        // The front door listens and hands connections over.
        info.port = Int32(easel_lws_no_listen)
        // Room for any head the front door lets through.
        info.max_http_header_data2 = UInt32(RequestHead.headLimit + 4096)
        info.protocols = UnsafePointer(protocols)
        info.pvo = UnsafePointer(options)
        info.vhost_name = UnsafePointer(cString("easel"))
        info.options = easel_lws_server_options | easel_lws_libev_option
        info.foreign_loops = foreignLoops
        info.user = user
        guard let context = lws_create_context(&info) else {
            protocols.deallocate()
            options.deallocate()
            foreignLoops.deallocate()
            easel_ev_loop_destroy(loop)
            throw ServeError("cannot start libwebsockets (on libev: is libwebsockets-evlib-ev installed?)")
        }
        guard let vhost = lws_get_vhost_by_name(context, "easel") else {
            lws_context_destroy(context)
            foreignLoops.deallocate()
            easel_ev_loop_destroy(loop)
            throw ServeError("cannot start libwebsockets")
        }
        self.context = context
        self.loop = loop
        self.foreignLoops = foreignLoops
        self.vhost = vhost
        cStrings = strings
    }

    /// Destroying the context closes what is left, calling back for each.
    deinit {
        lws_context_destroy(context)
        // lws stopped its watchers; the loop is ours to end.
        easel_ev_loop_destroy(loop)
        foreignLoops.deallocate()
        protocols.deallocate()
        vhostOptions.deallocate()
        for string in cStrings { free(string) }
    }

    /// One turn of the service loop: waits for something to happen (a
    /// socket, a timer, a wake), then handles what is ready.
    func service() {
        easel_ev_run_once(loop)
    }

    /// The loop's way of waiting ("epoll" on Linux), for the log.
    var backend: String { String(cString: easel_ev_backend_name(loop)) }

    /// Wakes the service loop; the only call safe from another thread.
    func wake() {
        lws_cancel_service(context)
    }

    /// A connection the front door accepted: lws takes it as its own (and
    /// closes it, should it fail to).
    func adopt(_ socket: Int32) {
        _ = easel_lws_adopt(vhost, socket)
    }
}
