#!/usr/bin/env python3
"""A client of the Easel server written against Protocol/README.md alone,
on Python's `websockets`, in the JSON encoding (and raw binary for one check).
The Swift tests run it; each mode prints one JSON line of what it saw.

    easel_ws_client.py PORT converse DOCUMENT
    easel_ws_client.py PORT push DOCUMENT COUNT
    easel_ws_client.py PORT hold DOCUMENT
    easel_ws_client.py PORT burst DOCUMENT PUSHES
    easel_ws_client.py PORT state DOCUMENT
    easel_ws_client.py PORT binary-hello HEXFILE
    easel_ws_client.py PORT http PATH
    easel_ws_client.py PORT garbage TEXT
    easel_ws_client.py PORT oversize BYTES
"""
import asyncio
import json
import sys

import websockets

JSON = ["easel.v1.json"]


def hello(document, replica, name):
    return json.dumps({
        "type": "hello", "protocol": 1, "document": document, "replica": replica,
        "user": {"name": name, "initials": name[:1].upper(), "color": "#336699ff"},
    })


def create_emoji(counter, replica):
    op_id = f"{counter}@{replica}"
    return {"id": op_id, "tx": op_id, "op": "create", "kind": "emoji", "fields": {"character": "⭐", "x": float(counter)}}


async def receive(ws, wanted):
    """The next message of type `wanted`, skipping presence and the like."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == wanted:
            return message
        if message["type"] == "error":
            raise SystemExit(f"server error: {message}")


async def converse(uri, document):
    alice, bob = "00000000000000a1", "00000000000000b2"
    async with websockets.connect(uri, subprotocols=JSON) as a, websockets.connect(uri, subprotocols=JSON) as b:
        await a.send(hello(document, alice, "alice"))
        welcome_a = await receive(a, "welcome")
        await b.send(hello(document, bob, "bob"))
        await receive(b, "welcome")
        await a.send(json.dumps({"type": "push", "batch": "1", "ops": [create_emoji(1, alice)]}))
        ack = await receive(a, "ack")
        seen_by_b = await receive(b, "ops")
        await b.send(json.dumps({"type": "push", "batch": "7", "ops": [create_emoji(2, bob)]}))
        ack_b = await receive(b, "ack")
        seen_by_a = await receive(a, "ops")
        print(json.dumps({
            "subprotocol": a.subprotocol, "welcome": welcome_a, "ack": ack, "ack_b": ack_b,
            "seen_by_b": seen_by_b, "seen_by_a": seen_by_a,
        }))


async def push(uri, document, count):
    replica = "00000000000000c3"
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, replica, "carol"))
        await receive(ws, "welcome")
        acked = []
        for counter in range(1, count + 1):
            await ws.send(json.dumps({"type": "push", "batch": str(counter), "ops": [create_emoji(counter, replica)]}))
            ack = await receive(ws, "ack")
            acked.append(int(ack["first"]))
        print(json.dumps({"acked": acked}), flush=True)


async def burst(uri, document, pushes):
    """Pushes of 1 to 401 ops sent back to back without waiting for acks,
    so the watcher's ops arrive as many frames of every length class
    (under 126 bytes, 16-bit and 64-bit lengths), several to a write."""
    writer_replica = "00000000000000f6"
    async with websockets.connect(uri, subprotocols=JSON, max_size=None) as writer, \
            websockets.connect(uri, subprotocols=JSON, max_size=None) as watcher:
        await writer.send(hello(document, writer_replica, "frank"))
        await receive(writer, "welcome")
        await watcher.send(hello(document, "00000000000000f7", "gina"))
        await receive(watcher, "welcome")
        counter, sent = 0, []
        for index in range(pushes):
            ops = []
            for _ in range(1 + (index * 37) % 401):
                counter += 1
                ops.append(create_emoji(counter, writer_replica))
                sent.append(f"{counter}@{writer_replica}")
            await writer.send(json.dumps({"type": "push", "batch": str(index + 1), "ops": ops}))
        acks = 0
        while acks < pushes:
            await receive(writer, "ack")
            acks += 1
        seen, lengths = [], []
        while len(seen) < len(sent):
            raw = await asyncio.wait_for(watcher.recv(), 10)
            message = json.loads(raw)
            if message["type"] == "ops":
                lengths.append(len(raw.encode()))
                seen += [op["id"] for op in message["ops"]]
        print(json.dumps({"acks": acks, "in_order": seen == sent, "seen": len(seen),
                          "frames": len(lengths), "smallest": min(lengths), "largest": max(lengths)}))


async def hold(uri, document):
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, "00000000000000d4", "dave"))
        await receive(ws, "welcome")
        print(json.dumps({"joined": True}), flush=True)
        errors = []
        try:
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "error":
                    errors.append(message["code"])
        except websockets.ConnectionClosed as closed:
            print(json.dumps({"close": closed.rcvd.code if closed.rcvd else None, "errors": errors}), flush=True)


async def state(uri, document):
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, "00000000000000e5", "erin"))
        welcome = await receive(ws, "welcome")
        ops = list(welcome["ops"])
        while welcome["more"]:
            welcome = await receive(ws, "welcome")
            ops += welcome["ops"]
        print(json.dumps({"position": int(welcome["position"]), "ids": sorted(op["id"] for op in ops)}))


async def binary_hello(uri, hex_file):
    with open(hex_file) as file:
        message = bytes.fromhex("".join(file.read().split()))
    async with websockets.connect(uri) as ws:
        await ws.send(message)
        answer = await asyncio.wait_for(ws.recv(), 10)
        print(json.dumps({"subprotocol": ws.subprotocol, "binary": isinstance(answer, bytes), "tag": answer[1] if isinstance(answer, bytes) else None}))


async def garbage(uri, text):
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(text)
        error = await receive_any(ws)
        print(json.dumps({"error": error}))


async def receive_any(ws):
    return json.loads(await asyncio.wait_for(ws.recv(), 10))


async def oversize(uri, size):
    async with websockets.connect(uri, subprotocols=JSON, max_size=None) as ws:
        errors = []
        try:
            await ws.send("x" * size)
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] == "error":
                    errors.append(message["code"])
        except websockets.ConnectionClosed as closed:
            print(json.dumps({"close": closed.rcvd.code if closed.rcvd else None, "errors": errors}))


def http_get(port, path):
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            status, body = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read().decode()
    print(json.dumps({"status": status, "body": body}))


def main():
    port, mode, argument = sys.argv[1], sys.argv[2], sys.argv[3]
    uri = f"ws://127.0.0.1:{port}"
    if mode == "converse":
        asyncio.run(converse(uri, argument))
    elif mode == "push":
        asyncio.run(push(uri, argument, int(sys.argv[4])))
    elif mode == "burst":
        asyncio.run(burst(uri, argument, int(sys.argv[4])))
    elif mode == "hold":
        asyncio.run(hold(uri, argument))
    elif mode == "state":
        asyncio.run(state(uri, argument))
    elif mode == "garbage":
        asyncio.run(garbage(uri, argument))
    elif mode == "oversize":
        asyncio.run(oversize(uri, int(argument)))
    elif mode == "http":
        http_get(port, argument)
    elif mode == "binary-hello":
        asyncio.run(binary_hello(uri, argument))
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
