// What Swift cannot import of libwebsockets: macros for padding and option
// masks, and calls whose enum arguments are easier to pass from C.
#ifndef EASEL_LWS_SHIM_H
#define EASEL_LWS_SHIM_H

#include <libwebsockets.h>
// Without libev 3's names, whose function ev_loop would clash with the
// type of the same name in Swift.
#define EV_COMPAT3 0
#include <ev.h>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/syscall.h>
#endif
#include <unistd.h>

// Bytes lws writes the frame header into, before every payload it sends.
static const size_t easel_lws_pre = LWS_PRE;

static const unsigned long long easel_lws_server_options =
    LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;

// The server's lws runs on a libev loop of its own making (a "foreign"
// loop) instead of lws's poll() loop, which scans every connection each
// turn: libev waits with epoll, so a turn costs what is active, not what
// is open. lws's own libev loop would never return from lws_service;
// driving a foreign one a turn at a time keeps the service loop ours.
static const unsigned long long easel_lws_libev_option = LWS_SERVER_OPTION_LIBEV;

static inline void *easel_ev_loop_new(void) {
    return ev_loop_new(EVFLAG_AUTO | EVFLAG_NOENV);
}

// "epoll" where the kernel has it.
static inline const char *easel_ev_backend_name(void *loop) {
    switch (ev_backend((struct ev_loop *)loop)) {
    case EVBACKEND_EPOLL: return "epoll";
    case EVBACKEND_POLL: return "poll";
    case EVBACKEND_SELECT: return "select";
    case EVBACKEND_KQUEUE: return "kqueue";
    default: return "other";
    }
}

// Waits for at least one event (or a due timer), handles what is ready,
// and returns.
static inline void easel_ev_run_once(void *loop) {
    ev_run((struct ev_loop *)loop, EVRUN_ONCE);
}

static inline void easel_ev_loop_destroy(void *loop) {
    ev_loop_destroy((struct ev_loop *)loop);
}

static inline int easel_lws_write_message(struct lws *wsi, unsigned char *payload, size_t length, int text) {
    return lws_write(wsi, payload, length, text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY);
}

// Writes bytes that are already WebSocket frames (a batch framed by the
// caller) as they are: lws sends what the socket takes and keeps the rest
// for the next writable callback, so a batch is never split for others'
// writes. Returns -1 when the connection is to be closed.
static inline int easel_lws_write_raw(struct lws *wsi, unsigned char *frames, size_t length) {
    return lws_write(wsi, frames, length, LWS_WRITE_RAW) < 0 ? -1 : 0;
}

static inline void easel_lws_close_reason(struct lws *wsi, unsigned short code) {
    lws_close_reason(wsi, (enum lws_close_status)code, NULL, 0);
}

// Hard-closes a connection that has not finished closing within `seconds`
// (a peer that stopped reading never lets the close frame out).
static inline void easel_lws_close_within(struct lws *wsi, int seconds) {
    lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, seconds);
}

// Gives an HTTP transaction `seconds` more to make progress. libwebsockets
// puts its default content timeout on the whole transaction when the
// request starts, however long a busy blob thread takes: a large upload
// under load was cut off mid-way.
static inline void easel_lws_http_progress(struct lws *wsi, int seconds) {
    lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, seconds);
}

static inline int easel_lws_message_is_complete(struct lws *wsi) {
    return lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0;
}

static inline int easel_lws_is_binary(struct lws *wsi) {
    return lws_frame_is_binary(wsi);
}

static inline void easel_lws_quiet_logs(void) {
    lws_set_log_level(LLL_ERR, NULL);
}

// Writes an HTTP response's status line and headers for a body of `length`
// bytes, plus `extra` headers, one "name: value" a line; the body follows in
// the writable callback. Non-zero when the headers do not fit or a line is
// not a header.
static inline int easel_lws_http_headers(struct lws *wsi, unsigned int status, const char *content_type, size_t length,
                                         const char *extra) {
    unsigned char buffer[LWS_PRE + 2048];
    unsigned char *start = &buffer[LWS_PRE], *position = start, *end = &buffer[sizeof(buffer) - 1];
    if (lws_add_http_common_headers(wsi, status, content_type, (lws_filepos_t)length, &position, end)) return 1;
    for (const char *line = extra; line && *line;) {
        const char *colon = strchr(line, ':'), *newline = strchr(line, '\n');
        if (!colon || !newline || colon > newline) return 1;
        char name[64];
        size_t name_length = (size_t)(colon - line) + 1; // lws wants the colon
        if (name_length >= sizeof name) return 1;
        memcpy(name, line, name_length);
        name[name_length] = 0;
        const char *value = colon + 1;
        while (*value == ' ') value++;
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
                                        (int)(newline - value), &position, end)) return 1;
        line = newline + 1;
    }
    return lws_finalize_write_http_header(wsi, start, &position, end);
}

// The request's If-None-Match header into `buffer` (NUL-terminated); its
// length, or -1 when it is absent or does not fit.
static inline int easel_lws_if_none_match(struct lws *wsi, char *buffer, int size) {
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH) <= 0) return -1;
    return lws_hdr_copy(wsi, buffer, size, WSI_TOKEN_HTTP_IF_NONE_MATCH);
}

// Writes the whole body (after LWS_PRE bytes of room) and ends the
// transaction; -1 means close the connection.
static inline int easel_lws_http_body(struct lws *wsi, unsigned char *payload, size_t length) {
    if (lws_write(wsi, payload, length, LWS_WRITE_HTTP_FINAL) != (int)length) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

// The request's method: 1 GET, 2 HEAD, 3 PUT, 0 any other.
static inline int easel_lws_http_method(struct lws *wsi) {
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0) return 1;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0) return 2;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_PUT_URI) > 0) return 3;
    return 0;
}

static const int easel_lws_token_authorization = WSI_TOKEN_HTTP_AUTHORIZATION;
static const int easel_lws_token_content_length = WSI_TOKEN_HTTP_CONTENT_LENGTH;
static const int easel_lws_token_get_uri = WSI_TOKEN_GET_URI;

// A request header (an lws token) into `buffer`, NUL-terminated; its length,
// or -1 when it is absent or does not fit.
static inline int easel_lws_header(struct lws *wsi, int token, char *buffer, int size) {
    if (lws_hdr_total_length(wsi, (enum lws_token_indexes)token) <= 0) return -1;
    return lws_hdr_copy(wsi, buffer, size, (enum lws_token_indexes)token);
}

// The value of the query argument `name` (given with its "="), decoded,
// into `buffer`; its length, or -1 when absent or too long.
static inline int easel_lws_query(struct lws *wsi, const char *name, char *buffer, int size) {
    const char *value = lws_get_urlarg_by_name(wsi, name, buffer, size);
    if (!value) return -1;
    int length = (int)strlen(value);
    memmove(buffer, value, (size_t)length + 1);
    return length;
}

// Writes part of a body (after LWS_PRE bytes of room); the final part ends
// the transaction. -1 means close the connection.
static inline int easel_lws_http_part(struct lws *wsi, unsigned char *payload, size_t length, int final) {
    if (lws_write(wsi, payload, length, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)length) return -1;
    if (!final) return 0;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

// Ends a transaction whose answer has no body (HEAD, 304); -1: close.
static inline int easel_lws_http_done(struct lws *wsi) {
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

// Pauses (0) or resumes (1) reading a connection's body.
static inline void easel_lws_read_flow(struct lws *wsi, int enable) {
    lws_rx_flow_control(wsi, enable);
}

// A context for client connections only, or a server whose connections
// are accepted by someone else and adopted.
static const int easel_lws_no_listen = CONTEXT_PORT_NO_LISTEN;

// Adopts a connection accepted elsewhere as an HTTP server connection, as
// if lws had accepted it. 0 when adopted.
static inline int easel_lws_adopt(struct lws_vhost *vhost, int socket) {
    return lws_adopt_socket_vhost(vhost, socket) ? 0 : -1;
}

// Starts a WebSocket client connection; callbacks go to the context's
// "easel-client" protocol, `opaque` comes back via lws_get_opaque_user_data.
// lws copies the strings it keeps.
static inline struct lws *easel_lws_connect(struct lws_context *context, const char *address, int port,
                                            const char *path, const char *subprotocol, void *opaque) {
    struct lws_client_connect_info info;
    memset(&info, 0, sizeof info);
    info.context = context;
    info.address = address;
    info.port = port;
    info.path = path;
    info.host = address;
    info.origin = address;
    info.protocol = subprotocol;
    info.local_protocol_name = "easel-client";
    info.opaque_user_data = opaque;
    info.ietf_version_or_minus_one = -1;
    return lws_client_connect_via_info(&info);
}

// And one call of the C library Swift cannot make (syscall is variadic):
// lowers the calling thread's own scheduling priority by `niceness` (on
// Linux a nice value belongs to a thread). 0 when done.
static inline int easel_lower_thread_priority(int niceness) {
#ifdef __linux__
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness);
#else
    // Elsewhere PRIO_PROCESS means the whole process: leave it alone.
    (void)niceness;
    return -1;
#endif
}

// glibc's malloc_trim, which Swift's Glibc module does not bring in:
// returns what the allocator holds free to the system. 1 when it released
// any; 0 elsewhere.
static inline int easel_return_free_memory(void) {
#if defined(__linux__) && defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

#ifdef __linux__
// epoll for the server's front door, which Swift's Glibc module does not
// bring in (and whose event struct is packed on x86-64): watch `fd` for
// `events` (`op` adds, changes or removes it); 0 when done.
static inline int easel_epoll_watch(int poller, int op, int fd, uint32_t events) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.fd = fd;
    return epoll_ctl(poller, op, fd, &event);
}

// Waits up to `milliseconds` for at most `capacity` (up to 256) ready
// sockets, and writes each one's descriptor and events; how many, or -1.
static inline int easel_epoll_wait(int poller, int *fds, uint32_t *events, int capacity, int milliseconds) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(poller, ready, capacity, milliseconds);
    for (int index = 0; index < count; index++) {
        fds[index] = ready[index].data.fd;
        events[index] = ready[index].events;
    }
    return count;
}
#endif

#endif
