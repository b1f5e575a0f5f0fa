import CLibWebSockets
import EaselHTTP
import EaselSync

/// Plain HTTP on the server's port (Protocol/README.md, section 1): each
/// path's answer, by `HTTPRoute`, all written the one way blob answers are.
extension ServiceHost {
    func answerHTTP(_ wsi: OpaquePointer, path: String) -> Int32 {
        switch HTTPRoute(path: path) {
        case .blob: return http.startBlob(wsi, path: path)
        case .health: return http.answerWhole(wsi, healthAnswer)
        case .metrics: return http.answerWhole(wsi, metricsAnswer)
        case .site:
            if let nodeName, path.hasPrefix("/d/"), requestHeader({ easel_lws_query(wsi, "home=", $0, $1) }) != nil {
                // The router sent a document's path here: this is its home
                // now (the rebalancing's question; Docs/scaling.md).
                return http.answerWhole(wsi, .text(200, nodeName + "\n"))
            }
            let answer = siteAnswer(wsi, path: path)
            if answer.status < 400 {
                warmDocument(at: path)
                carryOutOutputs()
            }
            return http.answerWhole(wsi, answer)
        }
    }

    /// 200 while serving, 503 once a stop began.
    private var healthAnswer: HTTPResponse {
        shutdown.isStopping ? .text(503, "stopping\n") : .text(200, "serving\n")
    }

    private var metricsAnswer: HTTPResponse {
        HTTPResponse(
            status: 200, contentType: "text/plain; version=0.0.4",
            body: metrics.exposition(
                connections: connections.count, rooms: server.roomCount,
                queuedBytes: connections.values.reduce(0) { $0 + $1.outgoing.ownedBytes },
                opsAwaitingStorage: server.opsAwaitingStorage, storage: storage.metrics))
    }

    /// The web canvas's pages and files (`WebSite`), or 404.
    private func siteAnswer(_ wsi: OpaquePointer, path: String) -> HTTPResponse {
        site?.response(for: path, ifNoneMatch: requestHeader { easel_lws_if_none_match(wsi, $0, $1) })
            ?? .text(404, "no such page: Easel serves WebSockets, /healthz, /metrics and its web canvas\n")
    }
}
