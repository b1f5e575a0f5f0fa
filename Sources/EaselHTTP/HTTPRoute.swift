/// Which answer an HTTP request on the server's port gets, by its path:
/// one place for every path the server answers.
package enum HTTPRoute: Equatable {
    /// `/healthz`: 200 while serving, 503 once a stop began.
    case health
    /// `/metrics`: the Prometheus text format.
    case metrics
    /// `/blobs/…`: image bytes up and down (`BlobRequest`).
    case blob
    /// Anything else: the web canvas's pages and files, or 404.
    case site

    package init(path: String) {
        switch path {
        case "/healthz": self = .health
        case "/metrics": self = .metrics
        case _ where BlobRequest.handles(path): self = .blob
        default: self = .site
        }
    }
}
