"""The writer's messages for `easel bench serve --pycrdt`: one Yjs update
creating 100 entities (a map of maps), then COUNT updates each setting SETS
numbers (the x of a shape, in one transaction), as y-websocket sync messages (type 0, update 2, the
update's length as a varuint, the update), written to FILE each after its
length as a little-endian 32-bit integer. Prints one JSON line:
{"updates": N, "bytes": B}.

    python3 Benchmarks/peers/pycrdt_updates.py COUNT SETS FILE"""

import json
import random
import struct
import sys

from pycrdt import Doc, Map


def varuint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def main():
    count, sets, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    doc = Doc()
    entities = doc.get("entities", type=Map)
    updates = []
    doc.observe(lambda event: updates.append(event.update))
    with doc.transaction():
        for index in range(100):
            entities[f"e{index}"] = Map({"kind": "rectangle", "x": 0.0})
    shapes = [entities[f"e{index}"] for index in range(100)]
    draw = random.Random(7)
    for _ in range(count):
        with doc.transaction():
            for _ in range(sets):
                shapes[draw.randrange(100)]["x"] = float(draw.randrange(4000))
    with open(path, "wb") as file:
        for update in updates:
            message = b"\x00\x02" + varuint(len(update)) + update
            file.write(struct.pack("<I", len(message)) + message)
    print(json.dumps({"updates": len(updates), "bytes": sum(map(len, updates))}))


if __name__ == "__main__":
    main()
