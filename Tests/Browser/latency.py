"""A TCP proxy that holds every byte for a delay the test sets: a slow
network between a page and the server, for WebSockets too (Chromium's own
network throttling, CDP's Network.emulateNetworkConditions, leaves WebSocket
frames alone)."""

import queue
import socket
import threading
import time


class LatencyProxy:
    def __init__(self, target_port):
        self.target_port = target_port
        self.delay = 0.0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                held = queue.Queue()
                threading.Thread(target=self._read, args=(source, held), daemon=True).start()
                threading.Thread(target=self._write, args=(sink, held), daemon=True).start()

    def _read(self, source, held):
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            held.put((time.monotonic() + self.delay, data))
            if not data:
                return

    def _write(self, sink, held):
        while True:
            due, data = held.get()
            time.sleep(max(0.0, due - time.monotonic()))
            try:
                if not data:
                    sink.shutdown(socket.SHUT_WR)
                    return
                sink.sendall(data)
            except OSError:
                return

    def close(self):
        self.closed = True
        self.listener.close()
        for connection in self.sockets:
            try:
                connection.close()
            except OSError:
                pass
