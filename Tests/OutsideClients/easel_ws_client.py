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
    easel_ws_client.py PORT invalid-vectors VECTORS_DIR
    easel_ws_client.py PORT push-flood DOCUMENT PUSHES
    easel_ws_client.py PORT presence-flood DOCUMENT MESSAGES
    easel_ws_client.py PORT slow-reader DOCUMENT MEBIBYTES
    easel_ws_client.py PORT welcome-size DOCUMENT [SECONDS]
    easel_ws_client.py PORT non-readers DOCUMENT COUNT SECONDS
    easel_ws_client.py PORT hello-as DOCUMENT REPLICA TOKEN|- [PROTOCOL]
    easel_ws_client.py PORT identity DOCUMENT TOKEN_A TOKEN_B

Every mode that takes a TOKEN reads '-' as none.
"""
import asyncio
import json
import sys
import time

import websockets

JSON = ["easel.v1.json"]


def hello(document, replica, name, token=None, protocol=1):
    message = {
        "type": "hello", "protocol": protocol, "document": document, "replica": replica,
        "user": {"name": name, "initials": name[:1].upper(), "color": "#336699ff"},
    }
    if token is not None:
        message["token"] = token
    return json.dumps(message)


def closed_code(closed):
    return closed.rcvd.code if closed.rcvd else None


async def until_closed(ws, timeout=10):
    """Reads to the close: the error codes seen and the close code."""
    errors = []
    try:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
            if message["type"] == "error":
                errors.append(message["code"])
    except websockets.ConnectionClosed as closed:
        return errors, closed_code(closed)


def create_emoji(counter, replica):
    op_id = f"{counter}@{replica}"
    return {"id": op_id, "tx": op_id, "op": "create", "kind": "emoji", "fields": {"character": "⭐", "x": float(counter % 1_000_000)}}


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


async def push_latency(uri, document, count):
    """Pushes one op at a time and times each push to its ack; prints the
    median, 99th percentile and largest, in milliseconds."""
    import time
    replica = "00000000000000c4"
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, replica, "lat"))
        await receive(ws, "welcome")
        times = []
        for counter in range(1, count + 1):
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "push", "batch": str(counter), "ops": [create_emoji(counter, replica)]}))
            await receive(ws, "ack")
            times.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.01)
        times.sort()
        print(json.dumps({"p50": times[len(times) // 2], "p99": times[min(len(times) - 1, len(times) * 99 // 100)],
                          "max": times[-1]}), flush=True)


async def burst(uri, document, pushes):
    """Pushes of 1 to 501 ops sent back to back without waiting for acks,
    so the watcher's ops arrive as many frames of every length class
    (under 126 bytes, 16-bit and 64-bit lengths), several to a write. The
    biggest push alone needs a 64-bit length (about 75 kB), whether or not
    the server's commits happen to coalesce pushes into one message."""
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
            for _ in range(1 + (index * 37) % 501):
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


async def invalid_vectors(uri, vectors_dir):
    """Each invalid vector of Protocol/vectors on its own connection, after a
    valid hello, while a watcher sits in the same document; prints what
    each vector got and everything the watcher received."""
    import os
    with open(os.path.join(vectors_dir, "index.json")) as file:
        index = json.load(file)
    minimal = next(v for v in index["valid"] if v["name"] == "hello-minimal")
    with open(os.path.join(vectors_dir, minimal["json"])) as file:
        json_hello = file.read().strip()
    with open(os.path.join(vectors_dir, minimal["binary"])) as file:
        binary_hello = bytes.fromhex("".join(file.read().split()))
    document = json.loads(json_hello)["document"]
    results = []
    async with websockets.connect(uri, subprotocols=JSON) as watcher:
        await watcher.send(hello(document, "00000000000000a9", "watcher"))
        await receive(watcher, "welcome")
        for vector in index["invalid"]:
            binary = vector["encoding"] == "binary"
            with open(os.path.join(vectors_dir, vector["file"]), "rb") as file:
                raw = file.read()
            payload = bytes.fromhex("".join(raw.decode().split())) if binary else raw.rstrip(b"\n")
            async with websockets.connect(uri, subprotocols=["easel.v1" if binary else "easel.v1.json"]) as ws:
                await ws.send(binary_hello if binary else json_hello)
                await ws.recv()  # the welcome
                # Bytes as a text frame, whatever they hold (json-not-utf8).
                await ws.send(payload, text=not binary)
                result = {"name": vector["name"], "expected": vector["code"],
                          "expected_batch": vector.get("batch")}
                try:
                    answer = await asyncio.wait_for(ws.recv(), 10)
                    if binary:
                        result["code"], result["batch"] = decode_binary_error(answer)
                    else:
                        message = json.loads(answer)
                        result["code"], result["batch"] = message.get("code"), message.get("batch")
                except websockets.ConnectionClosed as closed:
                    result["close"] = closed_code(closed)
                results.append(result)
        # Whatever reached the watcher meanwhile, and a ping to be sure it
        # has all arrived.
        await watcher.send(json.dumps({"type": "ping", "nonce": "99"}))
        seen = []
        while True:
            message = json.loads(await asyncio.wait_for(watcher.recv(), 10))
            if message["type"] == "pong":
                break
            seen.append(message)
    print(json.dumps({"results": results, "watcher_saw": seen}))


def decode_binary_error(answer):
    """The code and batch (a decimal string, or None) of a binary `error`
    message: version byte, tag 8, the code as a LEB128 varint, a flags byte
    (bit 1: a batch follows), then the batch as a varint (Protocol/README.md,
    section 4)."""
    if len(answer) < 3 or answer[1] != 8:
        return None, None
    position = 2

    def varint():
        nonlocal position
        value, shift = 0, 0
        while position < len(answer):
            byte = answer[position]
            position += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value
        return None

    code = varint()
    if code is None or position >= len(answer):
        return code, None
    flags = answer[position]
    position += 1
    batch = varint() if flags & 0x02 else None
    return code, None if batch is None else str(batch)


async def push_flood(uri, document, pushes):
    """Pushes sent back to back with no wait for acks."""
    replica = "0000000000000f10"
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, replica, "flood"))
        await receive(ws, "welcome")
        acks, errors = 0, []
        sender = asyncio.ensure_future(send_all(ws, (
            json.dumps({"type": "push", "batch": str(n), "ops": [create_emoji(n, replica)]}) for n in range(1, pushes + 1))))
        close = None
        try:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] == "ack":
                    acks += 1
                elif message["type"] == "error":
                    errors.append(message["code"])
        except websockets.ConnectionClosed as closed:
            close = closed_code(closed)
        sender.cancel()
        print(json.dumps({"acks": acks, "errors": sorted(set(errors)), "error_count": len(errors), "close": close}))


async def send_all(ws, messages):
    try:
        for message in messages:
            await ws.send(message)
    except websockets.ConnectionClosed:
        pass


async def presence_flood(uri, document, count):
    replica = "0000000000000f20"
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, replica, "chatty"))
        await receive(ws, "welcome")
        sender = asyncio.ensure_future(send_all(ws, (
            json.dumps({"type": "presence", "replica": replica,
                        "user": {"name": "chatty", "initials": "C", "color": "#336699ff"},
                        "cursor": {"x": float(n), "y": 0.0}, "selection": [], "idle": False})
            for n in range(count))))
        errors, close = await until_closed(ws)
        sender.cancel()
        print(json.dumps({"errors": sorted(set(errors)), "close": close}))


async def slow_reader(uri, document, mebibytes):
    """A reader that stops reading while a writer pushes MEBIBYTES of text
    entities; once the writer's pushes are acknowledged it reads what is
    left to find how its connection ended."""
    import socket
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    port = int(uri.rsplit(":", 1)[1])
    sock.connect(("127.0.0.1", port))
    writer_replica = "0000000000000f31"
    async with websockets.connect(uri, subprotocols=JSON, sock=sock, max_queue=1, max_size=None) as reader, \
            websockets.connect(uri, subprotocols=JSON, max_size=None) as writer:
        await reader.send(hello(document, "0000000000000f30", "sleepy"))
        await receive(reader, "welcome")
        await writer.send(hello(document, writer_replica, "busy"))
        await receive(writer, "welcome")
        text = "x" * 16000
        pushes = mebibytes * 1024 * 1024 // (16 * 16000)
        counter = 0
        for batch in range(1, pushes + 1):
            ops = []
            for _ in range(16):
                counter += 1
                op_id = f"{counter}@{writer_replica}"
                ops.append({"id": op_id, "tx": op_id, "op": "create", "kind": "text", "fields": {"text": text}})
            await writer.send(json.dumps({"type": "push", "batch": str(batch), "ops": ops}))
            await receive(writer, "ack")
        errors, close = await until_closed(reader)
        # The writer was never held up: one more push goes through.
        counter += 1
        await writer.send(json.dumps({"type": "push", "batch": "0", "ops": [create_emoji(counter, writer_replica)]}))
        await receive(writer, "ack")
        print(json.dumps({"pushes": pushes, "close": close, "errors": errors, "writer_ok": True}))


async def welcome_size(uri, document, seconds=60):
    """Joins, reads the whole welcome, waiting up to SECONDS for each of its
    chunks, and prints its bytes, chunks and ops, and the seconds from its
    hello to the welcome's first frame and to its last."""
    async with websockets.connect(uri, subprotocols=JSON, max_size=None) as ws:
        started = time.monotonic()
        await ws.send(hello(document, "0000000000000e01", "reader"))
        size, chunks, ops, first = 0, 0, 0, None
        while True:
            text = await asyncio.wait_for(ws.recv(), seconds)
            message = json.loads(text)
            if message["type"] != "welcome":
                continue
            if first is None:
                first = time.monotonic() - started
            size += len(text)
            chunks += 1
            ops += len(message["ops"])
            if not message["more"]:
                break
        last = time.monotonic() - started
        print(json.dumps({"bytes": size, "chunks": chunks, "ops": ops, "first_seconds": first, "last_seconds": last}))


def non_readers(port, document, count, seconds):
    """COUNT raw connections that each say hello and never read another
    byte, held for SECONDS; prints a line once every hello is out, and one
    at the end with how many the server had cut off by then."""
    import base64
    import os
    import socket
    import time
    sockets = []
    for index in range(count):
        sock = socket.create_connection(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Protocol: {JSON[0]}\r\n\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            piece = sock.recv(1)
            if not piece:
                raise SystemExit("the server closed during the handshake")
            answer += piece
        if b" 101 " not in answer.split(b"\r\n")[0]:
            raise SystemExit(f"no upgrade: {answer!r}")
        payload = hello(document, f"{0xd000 + index:016x}", f"idle{index}").encode()
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        header = bytes([0x81, 0x80 | 126]) + len(payload).to_bytes(2, "big") if len(payload) >= 126 \
            else bytes([0x81, 0x80 | len(payload)])
        sock.sendall(header + mask + masked)
        sockets.append(sock)
    print(json.dumps({"joined": count}), flush=True)
    time.sleep(seconds)
    cut = 0
    for sock in sockets:
        # Read what is left to find whether the server ended the connection.
        sock.settimeout(0.2)
        try:
            while True:
                if not sock.recv(1 << 20):
                    cut += 1
                    break
        except socket.timeout:
            pass
        except OSError:
            cut += 1
    print(json.dumps({"cut": cut}), flush=True)


async def hello_as(uri, document, replica, token, protocol):
    """A hello with a token (or none); prints the welcome's position or the
    refusal, then, when welcomed, tries one push and prints its answer."""
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, replica, "someone", token, protocol))
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if first["type"] != "welcome":
            errors, close = await until_closed(ws)
            print(json.dumps({"refused": first.get("code"), "fatal": first.get("fatal"), "close": close,
                              "message": first.get("message")}))
            return
        await ws.send(json.dumps({"type": "push", "batch": "1", "ops": [create_emoji(1, replica)]}))
        answer = await receive_reply(ws)
        print(json.dumps({"welcomed": True, "push": answer}))


async def move_entity(uri, document, replica, entity):
    """A hello, then one push moving `entity` (someone else's); prints the
    hello's refusal, or the push's answer. Connects at once, so a server
    stopped with SIGSTOP takes the connection when it resumes."""
    async with websockets.connect(uri, subprotocols=JSON, open_timeout=30) as ws:
        await ws.send(hello(document, replica, "mover"))
        first = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if first["type"] != "welcome":
            print(json.dumps({"refused": first.get("code"), "message": first.get("message")}))
            return
        op_id = f"9@{replica}"
        move = {"id": op_id, "tx": op_id, "op": "set", "entity": entity, "fields": {"x": 42}}
        await ws.send(json.dumps({"type": "push", "batch": "1", "ops": [move]}))
        print(json.dumps({"welcomed": True, "push": await receive_reply(ws)}))


async def receive_reply(ws):
    """The next ack or error, skipping everything else."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] in ("ack", "error"):
            return message


async def push_once(uri, document, token=None, replica="00000000000000c5"):
    """One push; prints the server's reply to it, an ack or an error."""
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        await ws.send(hello(document, replica, "dora", token))
        await receive(ws, "welcome")
        await ws.send(json.dumps({"type": "push", "batch": "1", "ops": [create_emoji(1, replica)]}))
        print(json.dumps(await receive_reply(ws)), flush=True)


async def identity(uri, document, token_a, token_b):
    """The Room's identity rules through a real server: an op stamped with
    another replica (203), an OpID again with other content (204), a
    counter far beyond the document's (205), another user taking the
    replica (304), the same user taking it over (4003 for the stale one)."""
    replica, other = "0000000000000ab1", "0000000000000ab2"
    tok_a = None if token_a == "-" else token_a
    tok_b = None if token_b == "-" else token_b
    out = {}
    async with websockets.connect(uri, subprotocols=JSON) as first:
        await first.send(hello(document, replica, "ada", tok_a))
        await receive(first, "welcome")
        async def push(ws, batch, ops):
            await ws.send(json.dumps({"type": "push", "batch": str(batch), "ops": ops}))
            reply = await receive_reply(ws)
            return reply["type"] if reply["type"] == "ack" else reply["code"]
        out["first_push"] = await push(first, 1, [create_emoji(1, replica)])
        out["wrong_replica"] = await push(first, 2, [create_emoji(2, other)])
        changed = create_emoji(1, replica)
        changed["fields"]["x"] = 99.0
        out["op_conflict"] = await push(first, 3, [changed])
        out["resend_same"] = await push(first, 4, [create_emoji(1, replica)])
        out["counter_too_far"] = await push(first, 5, [create_emoji(1 << 40, replica)])
        async with websockets.connect(uri, subprotocols=JSON) as hijacker:
            await hijacker.send(hello(document, replica, "ada", tok_b))
            answer = json.loads(await asyncio.wait_for(hijacker.recv(), 10))
            _, close = await until_closed(hijacker)
            out["hijack"] = {"code": answer.get("code"), "close": close}
        out["first_still_works"] = await push(first, 6, [create_emoji(2, replica)])
        async with websockets.connect(uri, subprotocols=JSON) as again:
            await again.send(hello(document, replica, "ada", tok_a))
            await receive(again, "welcome")
            _, close = await until_closed(first)
            out["takeover_closes_stale"] = close
            out["takeover_push"] = await push(again, 7, [create_emoji(3, replica)])
    print(json.dumps(out))


async def paths(uri, document):
    """Joins the same document through /d/<document> and through another
    path: the hello names the document, the path does not."""
    out = {}
    for path in (f"/d/{document}", "/some/other/path"):
        async with websockets.connect(uri + path, subprotocols=JSON) as ws:
            await ws.send(hello(document, "00000000000000c3", "path"))
            welcome = await receive(ws, "welcome")
            out[path] = {"position": welcome["position"]}
    print(json.dumps(out))


async def hello_mended(uri, document):
    """Hellos the server refuses without closing (a bad document name,
    initials over 16 bytes), then a corrected hello on the same connection."""
    async with websockets.connect(uri, subprotocols=JSON) as ws:
        out = {"refusals": []}
        bad_name = json.loads(hello("../etc", "00000000000000d4", "mend"))
        long_initials = json.loads(hello(document, "00000000000000d4", "mend"))
        long_initials["user"]["initials"] = "x" * 17
        for message in (bad_name, long_initials):
            await ws.send(json.dumps(message))
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            out["refusals"].append({"code": answer.get("code"), "fatal": answer.get("fatal")})
        await ws.send(hello(document, "00000000000000d4", "mend"))
        out["then"] = (await receive(ws, "welcome"))["type"]
    print(json.dumps(out))


def raw_http(port, request_hex):
    """Sends the request's bytes as they are and prints what came back, whole,
    until the server closed or went quiet for 3 s."""
    import socket
    with socket.create_connection(("127.0.0.1", int(port)), timeout=3) as sock:
        sock.sendall(bytes.fromhex(request_hex))
        answer = b""
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
                head, _, body = answer.partition(b"\r\n\r\n")
                length = [line.split(b":", 1)[1].strip() for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")]
                if length and len(body) >= int(length[0]):
                    break
        except socket.timeout:
            pass
    print(json.dumps({"answer": answer.decode("latin-1")}), flush=True)


def http_get(port, path):
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            status, body = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read().decode()
    print(json.dumps({"status": status, "body": body}))


def blob(port, method, path, body_file, token, if_none_match):
    """One HTTP request on a blob with Python's http.client; prints its
    status, headers, the body's SHA-256 and length (and text, if text)."""
    import hashlib
    import http.client
    headers = {}
    if token != "-":
        headers["Authorization"] = f"Bearer {token}"
    if if_none_match != "-":
        headers["If-None-Match"] = if_none_match
    body = None
    if body_file != "-":
        with open(body_file, "rb") as file:
            body = file.read()
    # Generous: a server busy with many uploads pauses reading this one
    # while its blob thread catches up, for longer on a loaded machine.
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
    except (ConnectionError, http.client.HTTPException, OSError) as error:
        print(json.dumps({"status": None, "error": type(error).__name__}))
        return
    finally:
        connection.close()
    result = {"status": response.status, "headers": {k.lower(): v for k, v in response.getheaders()},
              "sha256": hashlib.sha256(data).hexdigest(), "length": len(data)}
    if response.getheader("Content-Type", "").startswith("text/"):
        result["text"] = data.decode()
    print(json.dumps(result))


def slow_put(port, path, body_file):
    """A PUT whose body trickles out, 64 KiB every 20 ms for the first MiB,
    then every 150 ms, so the upload stays in flight for seconds after the
    line it prints then, however slowly the test acts on it; prints the
    answer (or the error) at the end."""
    import http.client
    import time
    with open(body_file, "rb") as file:
        body = file.read()
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
    try:
        connection.putrequest("PUT", path)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        for start in range(0, len(body), 65536):
            connection.send(body[start:start + 65536])
            if start == 1 << 20:
                print(json.dumps({"sent": start}), flush=True)
            time.sleep(0.02 if start < 1 << 20 else 0.15)
        response = connection.getresponse()
        print(json.dumps({"status": response.status}))
    except (ConnectionError, http.client.HTTPException, OSError) as error:
        print(json.dumps({"status": None, "error": type(error).__name__}))


def stall_put(port, path, body_file):
    """A PUT that sends half its body and then nothing, waiting for the
    server to give up on it; prints how it ended and after how long."""
    import http.client
    import time
    with open(body_file, "rb") as file:
        body = file.read()
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
    started = time.monotonic()
    try:
        connection.putrequest("PUT", path)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        connection.send(body[:len(body) // 2])
        started = time.monotonic()
        response = connection.getresponse()
        print(json.dumps({"status": response.status, "seconds": time.monotonic() - started}))
    except (ConnectionError, http.client.HTTPException, OSError) as error:
        print(json.dumps({"status": None, "error": type(error).__name__, "seconds": time.monotonic() - started}))


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
    elif mode == "welcome-size":
        asyncio.run(welcome_size(uri, argument, *map(float, sys.argv[4:5])))
    elif mode == "non-readers":
        non_readers(int(port), argument, int(sys.argv[4]), float(sys.argv[5]))
    elif mode == "state":
        asyncio.run(state(uri, argument))
    elif mode == "garbage":
        asyncio.run(garbage(uri, argument))
    elif mode == "oversize":
        asyncio.run(oversize(uri, int(argument)))
    elif mode == "http":
        http_get(port, argument)
    elif mode == "raw-http":
        raw_http(port, argument)
    elif mode == "push-once":
        token = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != "-" else None
        asyncio.run(push_once(uri, argument, token, *sys.argv[5:6]))
    elif mode == "move-entity":
        asyncio.run(move_entity(uri, argument, sys.argv[4], sys.argv[5]))
    elif mode == "push-latency":
        asyncio.run(push_latency(uri, argument, int(sys.argv[4])))
    elif mode == "slow-put":
        slow_put(port, argument, sys.argv[4])
    elif mode == "stall-put":
        stall_put(port, argument, sys.argv[4])
    elif mode == "blob":
        blob(port, argument, sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7] if len(sys.argv) > 7 else "-")
    elif mode == "paths":
        asyncio.run(paths(uri, argument))
    elif mode == "hello-mended":
        asyncio.run(hello_mended(uri, argument))
    elif mode == "binary-hello":
        asyncio.run(binary_hello(uri, argument))
    elif mode == "invalid-vectors":
        asyncio.run(invalid_vectors(uri, argument))
    elif mode == "push-flood":
        asyncio.run(push_flood(uri, argument, int(sys.argv[4])))
    elif mode == "presence-flood":
        asyncio.run(presence_flood(uri, argument, int(sys.argv[4])))
    elif mode == "slow-reader":
        asyncio.run(slow_reader(uri, argument, int(sys.argv[4])))
    elif mode == "hello-as":
        token = None if sys.argv[5] == "-" else sys.argv[5]
        protocol = int(sys.argv[6]) if len(sys.argv) > 6 else 1
        asyncio.run(hello_as(uri, argument, sys.argv[4], token, protocol))
    elif mode == "identity":
        asyncio.run(identity(uri, argument, sys.argv[4], sys.argv[5]))
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
