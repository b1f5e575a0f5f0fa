"""pycrdt-websocket (the Jupyter project's y-websocket server, on Yrs) on a
free port of 127.0.0.1, for `easel bench serve --pycrdt`: every WebSocket's
path names its room; an update a client sends is applied to the room's
document and sent to every client of the room. Prints
"listening on 127.0.0.1:PORT" once it accepts connections; runs until killed.

    python3 Benchmarks/peers/pycrdt_websocket_server.py"""

import asyncio

from pycrdt.websocket import WebsocketServer
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed


class Channel:
    """A `websockets` connection as the channel pycrdt-websocket serves."""

    def __init__(self, connection):
        self._connection = connection

    @property
    def path(self):
        return self._connection.request.path

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self._connection.recv()
        except ConnectionClosed:
            raise StopAsyncIteration

    async def send(self, message):
        try:
            await self._connection.send(message)
        except ConnectionClosed:
            pass

    async def recv(self):
        return await self._connection.recv()


async def main():
    async with WebsocketServer() as rooms:
        async def handle(connection):
            await rooms.serve(Channel(connection))

        async with serve(handle, "127.0.0.1", 0, compression=None, max_size=None) as server:
            port = server.sockets[0].getsockname()[1]
            print(f"listening on 127.0.0.1:{port}", flush=True)
            await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
