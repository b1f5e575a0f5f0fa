/// The router's configuration for a local cluster: HAProxy on loopback,
/// routing each document to one node by a consistent hash of its name, so
/// a node that goes away moves only its own documents (Docs/scaling.md).
struct HAProxyConfig {
    struct Node {
        var name: String
        var port: Int
        /// A slot for a node added later (`add`): declared now, enabled
        /// through the admin socket then, since the ring is built at start.
        var spare = false
    }

    var port: Int
    var nodes: [Node]
    /// Connections at once: each takes two descriptors (client and node),
    /// and HAProxy refuses to start if the limit cannot hold them.
    var maxConnections: Int
    /// The admin socket `easel cluster` drains and enables nodes through.
    var adminSocket: String
    /// Milliseconds between health checks of a node; two failures mark it
    /// down, two successes up.
    var checkEveryMilliseconds = 250

    var text: String {
        var lines = [
            "global",
            "    maxconn \(maxConnections)",
            "    stats socket \(adminSocket) mode 600 level admin",
            "defaults",
            "    mode http",
            "    timeout connect 1s",
            "    timeout client 60s",
            "    timeout server 60s",
            // A WebSocket lives as long as its people stay.
            "    timeout tunnel 1h",
            "    timeout http-request 10s",
            // A node slow to answer its health check under a storm of
            // reconnections is busy, not gone: only a second's silence
            // marks a check failed (a killed node refuses at once).
            "    timeout check 1s",
            // A connection to a node that just died is tried again elsewhere,
            // before the health checks have noticed.
            "    retries 3",
            "    option redispatch 1",
            "frontend easel",
            "    bind 127.0.0.1:\(port)",
            // The document: the socket's and the page's path /d/<document>, or
            // a blob's ?doc=<document>. Other paths (the page's files, /healthz)
            // carry none, and go round the nodes.
            "    http-request set-var(txn.document) path,regsub(^/d/,) if { path_beg /d/ }",
            "    http-request set-var(txn.document) urlp(doc) if { path_beg /blobs/ }",
            "    default_backend nodes",
            "backend nodes",
            "    balance hash var(txn.document)",
            "    hash-type consistent",
            "    option httpchk GET /healthz",
            "    http-check expect status 200",
            // A node marked down has its tunnels cut: clients of a paused or
            // cut-off node reconnect now, not after their own silence limit.
            "    default-server check inter \(checkEveryMilliseconds)ms fall 2 rise 2 on-marked-down shutdown-sessions",
        ]
        // A client sent away with `moved to <node>` asks for that node by name;
        // a node that is down is skipped, and the hash chooses.
        for node in nodes { lines.append("    use-server \(node.name) if { urlp(node) -m str \(node.name) }") }
        for node in nodes {
            lines.append("    server \(node.name) 127.0.0.1:\(node.port)" + (node.spare ? " disabled" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
