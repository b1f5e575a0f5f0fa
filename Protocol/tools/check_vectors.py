#!/usr/bin/env python3
"""Check the Easel protocol v1 golden vectors with a decoder written from Protocol/README.md alone.

The binary decoder below is independent of the Swift implementation on purpose: it was written
from the specification only, so when the two disagree, either the Swift code or the specification
has to change, and the disagreement cannot go unnoticed.

Usage:
    check_vectors.py [VECTORS] [--schema SCHEMA]
        VECTORS: vectors/index.json, or the folder holding it (default: ../vectors next to tools/).
        SCHEMA:  the JSON Schema (default: ../schema/easel.v1.schema.json next to tools/).
    check_vectors.py --self-test
        Decode the worked example of section 4.3 and hand-built messages; needs no vectors.

For every valid vector: the binary decodes, the JSON text is strict JSON and valid against the
schema, and both give the same message (floats compared as binary32, -0 equal to 0).
For every invalid binary vector: the decoder fails with exactly the listed error code, and names
the listed batch (a push whose batch number it read before the fault) or none.
For the state-hash fixture: its ops, in either order, give canonical.hex by section 9's layout, and
XXH64 (seed 0) of those bytes and the emoji key are the ones index.json lists.
For every invalid JSON vector: code 110 must fail strict JSON parsing (UTF-8, no duplicate keys,
no NaN or Infinity, no lone surrogate escapes, nesting <= 16), code 111 must fail the schema;
other codes are only reported (lines starting with "note:"); a JSON push whose batch member is well
formed must list that batch.
Exit status: 0 when nothing failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import struct
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

# ---------------------------------------------------------------------------------------------
# Error codes (section 7) and limits (section 8)

TRUNCATED = 100
MALFORMED_VARINT = 101
TRAILING_BYTES = 102
UNSUPPORTED_WIRE_VERSION = 103
UNKNOWN_MESSAGE_TYPE = 104
UNKNOWN_TAG = 105
LENGTH_EXCEEDS_INPUT = 106
NON_FINITE_NUMBER = 107
INVALID_VALUE = 108
TOO_LARGE = 109
INVALID_JSON = 110
WRONG_TYPE = 111

ERROR_NAMES = {
    100: "truncated", 101: "malformedVarint", 102: "trailingBytes", 103: "unsupportedWireVersion",
    104: "unknownMessageType", 105: "unknownTag", 106: "lengthExceedsInput",
    107: "nonFiniteNumber", 108: "invalidValue", 109: "tooLarge", 110: "invalidJSON",
    111: "wrongType",
}

WIRE_VERSION = 1
MAX_U64 = 2**64 - 1
MAX_U32 = 2**32 - 1
MAX_MESSAGE_BYTES = 1_048_576
MAX_PUSH_OPS = 4096
MAX_MESSAGE_OPS = 65_536          # an `ops` or `welcome` message
MAX_DOCUMENT_BYTES = 128          # over it: 108, not 109
MAX_TOKEN_BYTES = 4096
MAX_NAME_BYTES = 64
MAX_INITIALS_BYTES = 16
MAX_ERROR_MESSAGE_BYTES = 1024
MAX_ZKEY_BYTES = 128              # over it: 108, not 109
MAX_SAMPLES = 4096                # over it: 108, not 109
MAX_COORDINATE = 1_000_000        # |x|, |y| of an op's positions; beyond it: 108
MAX_INSERT_SCALARS = 4096         # characters one insertText types; over it: 108
MAX_SNAPSHOT_RUNS = 4096          # runs in one piece of a text's snapshot; over it: 108
MAX_SNAPSHOT_SCALARS = 65536      # scalars of one piece's characters not deleted; over it: 108
MAX_DELETE_RUNS = 4096            # runs one deleteText names; over it: 108
MAX_TEXT_CHARACTERS = 1 << 20     # characters a text may ever have; a longer run: 108
MAX_ENTITIES = 1024               # in a selection or a gesture
MAX_POINTS = 1024
MAX_PEERS = 1024
MAX_ERROR_CODE = 65535
MAX_JSON_DEPTH = 16

# The smallest encoding of one element of each counted list. A count is refused with 106 before
# anything is read when count x smallest element > the bytes left ("larger than the bytes left
# could hold", section 7). Kept in one table because the specification does not say whether a
# decoder may assume one byte per element or must use the true minimum.
MIN_BYTES = {
    "erased entity": 18,  # uint replica index, uint counter, float x, y, scale, rotation
    "replica": 8,        # replica ID
    "entity entry": 2,   # uint replica index, uint counter
    "delete run": 3,     # uint replica index, uint counter, uint length
    "text snapshot run": 2,   # u8 flags, uint length
    "op": 2,             # header, then at least a one-byte entity index (delete, restore)
    "positioned op": 3,  # a position difference, then an op
    "field": 2,          # u8 tag, then at least a one-byte enum or empty string
    "sample": 12,        # float x, y, time
    "entity ID": 9,      # uint counter, replica ID
    "point": 8,          # float x, y
    "presence": 16,      # replica ID 8, user 6 (two empty strings, colour), flags 1, selection count 1
}

# ---------------------------------------------------------------------------------------------
# Names (sections 2, 3 and 3.1)

MESSAGE_TAGS = {1: "hello", 2: "welcome", 3: "push", 4: "ack", 5: "ops", 6: "presence",
                7: "leave", 8: "error", 9: "ping", 10: "pong"}
ACTIONS = {1: "create", 2: "set", 3: "delete", 4: "restore", 5: "append", 6: "insertText", 7: "deleteText"}
EXTENDED_ACTIONS = {8: "textSnapshot"}
KINDS = {1: "emoji", 2: "shape", 3: "text", 4: "stroke", 5: "image"}
GESTURE_KINDS = {1: "moving", 2: "scaling", 3: "rotating", 4: "drawing"}
TEXT_STYLES = ("regular", "outlined", "framed")
ALIGNMENTS = ("left", "center", "right")
SHAPES = ("rectangle", "ellipse", "arrow", "star", "bubble")
TOOLS = ("pen", "brush", "marker", "neon", "pencil", "eraser", "blur")
END_CAPS = ("round", "arrow")
FITS = ("contain", "cover", "stretch")
# The document itself (entity 0@0000000000000000, "document" in JSON) is
# only ever set, and only these fields of it.
DOCUMENT_FIELDS = frozenset({"fill", "blob", "width", "height", "fit"})

DOCUMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*")
BASE62 = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


class DecodeError(Exception):
    """Bytes the decoder cannot read; `code` is the error code of section 7."""

    def __init__(self, code: int, detail: str):
        super().__init__(f"{code} {ERROR_NAMES.get(code, '?')}: {detail}")
        self.code = code
        # The push's batch, when the decoder read it before the fault (section 7): the refusal
        # names it.
        self.batch: int | None = None


# ---------------------------------------------------------------------------------------------
# Primitives (section 4.1)

class Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.batch: int | None = None  # a push's batch, once read; positions are bounded in a push only

    @property
    def left(self) -> int:
        return len(self.data) - self.pos

    def take(self, n: int, what: str = "bytes") -> bytes:
        if n > self.left:
            raise DecodeError(TRUNCATED,
                              f"{what}: need {n} bytes at offset {self.pos}, {self.left} left")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def u8(self, what: str = "u8") -> int:
        return self.take(1, what)[0]

    def uint(self, what: str = "uint") -> int:
        """Unsigned LEB128: at most 10 bytes, at most 2^64 - 1, minimal."""
        value = 0
        for i in range(10):
            byte = self.u8(what)
            if i == 9 and byte & 0x80:
                raise DecodeError(MALFORMED_VARINT, f"{what}: longer than 10 bytes")
            if i == 9 and byte > 1:
                raise DecodeError(MALFORMED_VARINT, f"{what}: above 2^64 - 1")
            value |= (byte & 0x7F) << (7 * i)
            if not byte & 0x80:
                if byte == 0 and i > 0:
                    raise DecodeError(MALFORMED_VARINT, f"{what}: not minimal (ends in a 0x00 group)")
                return value
        raise AssertionError("unreachable: the tenth byte either ends the varint or fails")

    def sint(self, what: str = "sint") -> int:
        zigzag = self.uint(what)
        return (zigzag >> 1) ^ -(zigzag & 1)

    def u64le(self, what: str = "replica ID") -> int:
        return int.from_bytes(self.take(8, what), "little")

    def float32(self, what: str = "float") -> float:
        (value,) = struct.unpack("<f", self.take(4, what))
        if not math.isfinite(value):
            raise DecodeError(NON_FINITE_NUMBER, f"{what}: {value}")
        return 0.0 if value == 0 else value  # -0 is read as 0

    def coordinate(self, what: str = "coordinate") -> float:
        """A position an op writes: finite (107), and in a push within +-1,000,000 (108); what a
        server sends or stores may hold a position written before the bound."""
        value = self.float32(what)
        if self.batch is not None and abs(value) > MAX_COORDINATE:
            raise DecodeError(INVALID_VALUE, f"{what}: {value} is beyond +-{MAX_COORDINATE}")
        return value

    def colour(self, what: str = "colour") -> str:
        return "#" + self.take(4, what).hex()

    def count(self, what: str, limit: int | None = None, limit_code: int = TOO_LARGE) -> int:
        """A count of `what` elements: its limit first (spec 4.1), then 106 when they cannot fit."""
        n = self.uint(f"{what} count")
        if limit is not None and n > limit:
            raise DecodeError(limit_code, f"{n} x {what}, limit {limit}")
        if n * MIN_BYTES[what] > self.left:
            raise DecodeError(LENGTH_EXCEEDS_INPUT,
                              f"{n} x {what} of >= {MIN_BYTES[what]} bytes, {self.left} bytes left")
        return n

    def string(self, what: str, max_bytes: int, over_code: int = TOO_LARGE) -> str:
        length = self.uint(f"{what} length")
        if length > max_bytes:
            raise DecodeError(over_code, f"{what}: {length} bytes, limit {max_bytes}")
        if length > self.left:
            raise DecodeError(LENGTH_EXCEEDS_INPUT, f"{what}: {length} bytes, {self.left} left")
        raw = self.take(length, what)
        try:
            return raw.decode("utf-8")  # strict: rejects overlongs, surrogates, bad sequences
        except UnicodeDecodeError as error:
            raise DecodeError(INVALID_VALUE, f"{what}: bad UTF-8 ({error.reason})") from None


def replica_hex(replica: int) -> str:
    return f"{replica:016x}"


def op_id(counter: int, replica: int) -> str:
    return f"{counter}@{replica_hex(replica)}"


def read_enum(names: tuple[str, ...], r: Reader, what: str = "enum") -> str:
    value = r.u8(what)
    if value >= len(names):
        raise DecodeError(UNKNOWN_TAG, f"{what}: unknown value {value}")
    return names[value]


def read_tagged(table: dict[int, str], r: Reader, what: str) -> str:
    tag = r.u8(what)
    if tag not in table:
        raise DecodeError(UNKNOWN_TAG, f"{what}: unknown tag {tag}")
    return table[tag]


def read_point(r: Reader) -> dict:
    return {"x": r.float32("point x"), "y": r.float32("point y")}


def read_rect(r: Reader) -> dict:
    return {"x": r.float32("rect x"), "y": r.float32("rect y"),
            "width": r.float32("rect width"), "height": r.float32("rect height")}


def read_user(r: Reader) -> dict:
    return {"name": r.string("user name", MAX_NAME_BYTES),
            "initials": r.string("user initials", MAX_INITIALS_BYTES),
            "color": r.colour("user colour")}


def read_entity_id(r: Reader) -> str:
    """An entity ID outside an op batch: uint counter, then replica ID."""
    counter = r.uint("entity counter")
    if counter == 0:
        raise DecodeError(INVALID_VALUE, "entity ID with counter 0")
    return op_id(counter, r.u64le("entity replica"))


def read_entity_ids(r: Reader) -> list[str]:
    return [read_entity_id(r) for _ in range(r.count("entity ID", MAX_ENTITIES))]


def read_flags(r: Reader, what: str, known_bits: int) -> int:
    flags = r.u8(what)
    if flags & ~known_bits:
        raise DecodeError(UNKNOWN_TAG, f"{what}: unknown bits {flags & ~known_bits:#04x}")
    return flags


# ---------------------------------------------------------------------------------------------
# Fields (section 3.1)

def is_valid_zkey(key: str) -> bool:
    """Integer part (head letter, then the digit count it gives), then a fraction not ending in 0."""
    if not key or len(key.encode("utf-8")) > MAX_ZKEY_BYTES:
        return False
    head = key[0]
    if "a" <= head <= "z":
        digits = ord(head) - ord("a") + 1
    elif "A" <= head <= "Z":
        digits = ord("Z") - ord(head) + 1
    else:
        return False
    rest = key[1:]
    fraction = rest[digits:]
    return len(rest) >= digits and all(c in BASE62 for c in rest) and not fraction.endswith("0")


def read_zkey(r: Reader) -> str:
    key = r.string("zKey", MAX_ZKEY_BYTES, INVALID_VALUE)
    if not is_valid_zkey(key):
        raise DecodeError(INVALID_VALUE, f"zKey {key!r} is not of the form of section 3.1")
    return key


def read_blob(r: Reader) -> str:
    return r.take(32, "blob").hex()


MAX_ERASED_ENTITIES = 256


def read_erases(r: Reader) -> list[dict]:
    """An eraser's `erases` (section 4.3): a replica table of its own, then each entity by
    replica index and counter with the transform it had when erased."""
    replicas = [r.u64le("erased entity replica") for _ in range(r.count("replica", MAX_ERASED_ENTITIES))]
    erased, seen = [], set()
    for index in range(r.count("erased entity", MAX_ERASED_ENTITIES, INVALID_VALUE)):
        replica_index = r.uint("erased entity replica index")
        if replica_index >= len(replicas):
            raise DecodeError(INVALID_VALUE, f"erased entity {index}: replica index {replica_index} past its table")
        counter = r.uint("erased entity counter")
        if counter == 0:
            raise DecodeError(INVALID_VALUE, f"erased entity {index} has counter 0")
        entity = op_id(counter, replicas[replica_index])
        target = {"entity": entity}
        for name in ("x", "y"):
            target[name] = r.coordinate(f"erased entity {name}")
        for name in ("scale", "rotation"):
            target[name] = r.float32(f"erased entity {name}")
        if entity in seen:
            raise DecodeError(INVALID_VALUE, f"erased entity {entity} named twice")
        seen.add(entity)
        erased.append(target)
    return erased


ALL_KINDS = frozenset(KINDS.values())


@dataclass(frozen=True)
class FieldSpec:
    name: str
    read: Callable[[Reader], Any]
    kinds: frozenset[str]


def _kinds(*names: str) -> frozenset[str]:
    return frozenset(names)


FIELDS: dict[int, FieldSpec] = {
    1: FieldSpec("x", partial(Reader.coordinate, what="x"), ALL_KINDS),
    2: FieldSpec("y", partial(Reader.coordinate, what="y"), ALL_KINDS),
    3: FieldSpec("scale", partial(Reader.float32, what="scale"), ALL_KINDS),
    4: FieldSpec("rotation", partial(Reader.float32, what="rotation"), ALL_KINDS),
    5: FieldSpec("zKey", read_zkey, ALL_KINDS),
    6: FieldSpec("color", partial(Reader.colour, what="color"), ALL_KINDS),
    7: FieldSpec("fill", partial(Reader.colour, what="fill"), ALL_KINDS),
    8: FieldSpec("weight", partial(Reader.float32, what="weight"), ALL_KINDS),
    9: FieldSpec("size", partial(Reader.float32, what="size"), _kinds("emoji", "text")),
    10: FieldSpec("width", partial(Reader.float32, what="width"), _kinds("shape", "image")),
    11: FieldSpec("height", partial(Reader.float32, what="height"), _kinds("shape", "image")),
    12: FieldSpec("character", partial(Reader.string, what="character", max_bytes=64), _kinds("emoji")),
    13: FieldSpec("text", partial(Reader.string, what="text", max_bytes=16384), _kinds("text")),
    14: FieldSpec("font", partial(Reader.string, what="font", max_bytes=128), _kinds("text")),
    15: FieldSpec("textStyle", partial(read_enum, TEXT_STYLES, what="textStyle"), _kinds("text")),
    16: FieldSpec("alignment", partial(read_enum, ALIGNMENTS, what="alignment"), _kinds("text")),
    17: FieldSpec("shape", partial(read_enum, SHAPES, what="shape"), _kinds("shape")),
    18: FieldSpec("tool", partial(read_enum, TOOLS, what="tool"), _kinds("stroke")),
    19: FieldSpec("endCap", partial(read_enum, END_CAPS, what="endCap"), _kinds("stroke")),
    20: FieldSpec("blob", read_blob, _kinds("image")),
    21: FieldSpec("fit", partial(read_enum, FITS, what="fit"), _kinds()),
    22: FieldSpec("erases", read_erases, _kinds("stroke")),
}


FIELD_KINDS = {spec.name: spec.kinds for spec in FIELDS.values()}


def read_field(r: Reader) -> tuple[FieldSpec, Any]:
    tag = r.u8("field tag")
    spec = FIELDS.get(tag)
    if spec is None:
        raise DecodeError(UNKNOWN_TAG, f"unknown field tag {tag}")
    return spec, spec.read(r)


# ---------------------------------------------------------------------------------------------
# Op batch (section 4.3) and positioned ops (section 4.4)

@dataclass
class BatchState:
    """The tables of a batch and what each op may inherit from the previous one."""
    replicas: list[int]
    entities: list[str]
    replica_index: int = 0            # index 0 for the first op
    counter: int = 0                  # the previous counter starts at 0, whatever the replica
    transaction: tuple[int, int] | None = None   # (counter, replica); none before the first op

    def replica(self, index: int) -> int:
        if index >= len(self.replicas):
            raise DecodeError(INVALID_VALUE,
                              f"replica index {index} past a table of {len(self.replicas)}")
        return self.replicas[index]

    def entity(self, r: Reader) -> str:
        index = r.uint("entity index")
        if index >= len(self.entities):
            raise DecodeError(INVALID_VALUE,
                              f"entity index {index} past a table of {len(self.entities)}")
        return self.entities[index]


def read_op_batch(r: Reader, max_ops: int, min_ops: int = 0, positioned: bool = False) -> list[dict]:
    """An op batch (4.3); positioned (4.4): each op preceded by its position difference."""
    replicas = [r.u64le() for _ in range(r.count("replica", 2 * max_ops))]
    state = BatchState(replicas, entities=[])
    for _ in range(r.count("entity entry", max_ops)):
        # Each entry is a (replica index, counter) pair; see the report on the layout's wording.
        replica = state.replica(r.uint("entity replica index"))
        counter = r.uint("entity counter")
        if counter == 0 and replica != 0:
            raise DecodeError(INVALID_VALUE, "entity table counter 0 of a replica other than 0")
        state.entities.append("document" if counter == 0 else op_id(counter, replica))
    n = r.count("positioned op" if positioned else "op", max_ops)
    if n < min_ops:
        raise DecodeError(INVALID_VALUE, f"{n} ops, at least {min_ops} required")
    ops = []
    position = 0
    for _ in range(n):
        if positioned:
            delta = r.uint("position difference")
            if delta == 0:
                raise DecodeError(INVALID_VALUE, "position difference 0: positions must strictly increase")
            position += delta
            if position > MAX_U64:
                raise DecodeError(INVALID_VALUE, "position above 2^64 - 1")
        op = read_op(r, state)
        if positioned:
            op["position"] = str(position)
        ops.append(op)
    return ops


def read_op(r: Reader, state: BatchState) -> dict:
    header = r.u8("op header")
    action = ACTIONS.get(header & 0x07)   # None for 0: the body's first byte is the action's tag
    if header & 0x80:
        raise DecodeError(UNKNOWN_TAG, f"op header {header:#04x}: bit 7 set")
    tx_mode = (header >> 5) & 0x03
    if tx_mode == 3:
        raise DecodeError(UNKNOWN_TAG, f"op header {header:#04x}: transaction mode 3")

    if header & 0x08:                                    # R
        state.replica_index = r.uint("op replica index")
    replica = state.replica(state.replica_index)
    delta = r.sint("counter delta") if header & 0x10 else 1   # C
    counter = (state.counter + delta) % 2**64
    if counter == 0:
        raise DecodeError(INVALID_VALUE, "op counter 0")
    state.counter = counter

    transaction = read_transaction(r, state, tx_mode, counter, replica)
    state.transaction = transaction
    if action is None:
        tag = r.u8("extended action tag")
        action = EXTENDED_ACTIONS.get(tag)
        if action is None:
            raise DecodeError(UNKNOWN_TAG, f"op header {header:#04x}: unknown action {tag}")
    op = {"id": op_id(counter, replica), "tx": op_id(*transaction), "op": action}
    op.update(ACTION_BODIES[action](r, state))

    # Rules about the op as a whole are checked once it is read (spec 4.1, order of checks).
    if transaction[1] != replica or transaction[0] > counter:
        raise DecodeError(INVALID_VALUE, f"transaction {op_id(*transaction)} of op"
                          f" {op_id(counter, replica)} names another replica or a later counter")
    if op.get("entity") == "document":
        if action != "set":
            raise DecodeError(INVALID_VALUE, f"{action} of the document itself, which is only ever set")
        if not set(op["fields"]) <= DOCUMENT_FIELDS:
            raise DecodeError(INVALID_VALUE, f"fields {sorted(op['fields'])} set on the document itself")
    if action == "create":
        for name in op["fields"]:
            if op["kind"] not in FIELD_KINDS[name]:
                raise DecodeError(INVALID_VALUE, f"field {name} is not a field of kind {op['kind']}")
    if action == "append" and op["start"] + len(op["samples"]) > MAX_U32:
        raise DecodeError(INVALID_VALUE, f"append start {op['start']} + {len(op['samples'])} samples > 2^32 - 1")
    return op


def read_transaction(r: Reader, state: BatchState, mode: int, counter: int,
                     replica: int) -> tuple[int, int]:
    if mode == 0:
        if state.transaction is None:
            raise DecodeError(INVALID_VALUE, "transaction mode 0 (previous op's) on the first op")
        return state.transaction
    if mode == 1:
        return counter, replica
    tx_replica = state.replica(r.uint("transaction replica index"))
    tx_counter = r.uint("transaction counter")
    if tx_counter == 0:
        raise DecodeError(INVALID_VALUE, "transaction counter 0")
    return tx_counter, tx_replica


def read_create(r: Reader, state: BatchState) -> dict:
    kind = read_tagged(KINDS, r, "entity kind")
    fields: dict[str, Any] = {}
    for _ in range(r.count("field")):
        spec, value = read_field(r)
        if spec.name in fields:
            raise DecodeError(INVALID_VALUE, f"field {spec.name} twice in a create")
        fields[spec.name] = value
    return {"kind": kind, "fields": fields}


def read_set(r: Reader, state: BatchState) -> dict:
    entity = state.entity(r)
    spec, value = read_field(r)
    return {"entity": entity, "fields": {spec.name: value}}


def read_entity_only(r: Reader, state: BatchState) -> dict:
    return {"entity": state.entity(r)}


def read_append(r: Reader, state: BatchState) -> dict:
    entity = state.entity(r)
    start = r.uint("append start")
    if start > MAX_U32:
        raise DecodeError(INVALID_VALUE, f"append start {start} > 2^32 - 1")
    count = r.count("sample", MAX_SAMPLES, INVALID_VALUE)
    if count == 0:
        raise DecodeError(INVALID_VALUE, "append of 0 samples")
    has_force = read_force_mode(r, count)
    samples = []
    for i in range(count):
        sample = [r.coordinate("sample x"), r.coordinate("sample y"), r.float32("sample time")]
        if has_force[i]:
            sample.append(r.float32("sample force"))  # 0-1 by convention, not checked
        samples.append(sample)
    return {"entity": entity, "start": start, "samples": samples}


def read_force_mode(r: Reader, count: int) -> list[bool]:
    """Which samples carry a force: none (0), all (1), or those a bitmap marks (2)."""
    mode = r.u8("force mode")
    if mode == 0:
        return [False] * count
    if mode == 1:
        return [True] * count
    if mode != 2:
        raise DecodeError(UNKNOWN_TAG, f"force mode {mode}")
    bitmap = r.take((count + 7) // 8, "force bitmap")
    used_bits = count % 8
    if used_bits and bitmap[-1] >> used_bits:
        # Unused bits must be 0 (spec 4.3: 108).
        raise DecodeError(INVALID_VALUE, f"force bitmap: unused bits set in {bitmap[-1]:#04x}")
    return [bool(bitmap[i // 8] >> (i % 8) & 1) for i in range(count)]


def read_character_id(r: Reader, state: BatchState, what: str) -> str:
    replica = state.replica(r.uint(f"{what} replica index"))
    counter = r.uint(f"{what} counter")
    if counter == 0:
        raise DecodeError(INVALID_VALUE, f"{what}: counter 0")
    return op_id(counter, replica)


def read_insert_text(r: Reader, state: BatchState) -> dict:
    """4.3: entity, flags (1 left origin, 2 right origin, 4 typing on: the left
    origin is the character just before the op's own ID), origins, UTF-8."""
    entity = state.entity(r)
    flags = read_flags(r, "insert flags", 0x07)
    op: dict[str, Any] = {"entity": entity}
    if flags & 0x04:
        if not flags & 0x01 or state.counter < 2:
            raise DecodeError(INVALID_VALUE, "typing on from no character")
        op["after"] = op_id(state.counter - 1, state.replica(state.replica_index))
    elif flags & 0x01:
        op["after"] = read_character_id(r, state, "left origin")
    if flags & 0x02:
        op["before"] = read_character_id(r, state, "right origin")
    text = r.string("inserted characters", MAX_INSERT_SCALARS * 4, INVALID_VALUE)
    if not 1 <= len(text) <= MAX_INSERT_SCALARS:
        raise DecodeError(INVALID_VALUE, f"an insert of {len(text)} characters")
    op["text"] = text
    return op


def read_delete_text(r: Reader, state: BatchState) -> dict:
    entity = state.entity(r)
    runs = []
    for _ in range(r.count("delete run", MAX_DELETE_RUNS, INVALID_VALUE)):
        first = read_character_id(r, state, "run")
        count = r.uint("run length")
        if not 1 <= count <= MAX_TEXT_CHARACTERS:
            raise DecodeError(INVALID_VALUE, f"a run of {count} characters")
        runs.append({"first": first, "count": count})
    if not runs:
        raise DecodeError(INVALID_VALUE, "a delete naming no characters")
    return {"entity": entity, "runs": runs}


def read_text_snapshot(r: Reader, state: BatchState) -> dict:
    """4.3: entity, runs (a flags byte each: 1 deleted, 2 first ID written,
    bits 2-3 left origin, bits 4-5 right origin, 0x40 the first ID names a
    replica, 0x80 written origins name replicas), then the characters not
    deleted as one string."""
    entity = state.entity(r)
    runs: list[dict] = []
    right_is_next: list[int] = []
    replica = state.replica(0) if state.replicas else None
    for at in range(r.count("text snapshot run", MAX_SNAPSHOT_RUNS, INVALID_VALUE)):
        what = f"run {at}"
        flags = r.u8(f"{what} flags")
        previous = runs[-1] if runs else None
        if flags & 0x02:
            if flags & 0x40:
                replica = state.replica(r.uint(f"{what} replica index"))
            if replica is None:
                raise DecodeError(INVALID_VALUE, f"{what} names no replica")
            base = previous["end"] if previous else 0
            counter = (base + r.sint(f"{what} counter difference")) % 2**64
        else:
            if previous is None or flags & 0x40:
                raise DecodeError(UNKNOWN_TAG, f"{what} goes on from no run, or names a replica it does not start")
            counter, replica = previous["end"], previous["replica"]
        if counter == 0:
            raise DecodeError(INVALID_VALUE, f"{what} has counter 0")
        count = r.uint(f"{what} length")
        if not 1 <= count <= MAX_TEXT_CHARACTERS:
            raise DecodeError(INVALID_VALUE, f"{what} of {count} characters")

        def written(side: str) -> tuple[int, int]:
            origin_replica = state.replica(r.uint(f"{what} {side} origin replica")) if flags & 0x80 else replica
            origin_counter = (counter + r.sint(f"{what} {side} origin")) % 2**64
            if origin_counter == 0:
                raise DecodeError(INVALID_VALUE, f"{what} {side} origin has counter 0")
            return origin_counter, origin_replica

        run: dict[str, Any] = {"first": (counter, replica), "count": count, "replica": replica,
                               "end": (counter + count) % 2**64}
        left = flags >> 2 & 3
        if left == 1:
            if counter < 2:
                raise DecodeError(INVALID_VALUE, f"{what} types on from no character")
            run["after"] = (counter - 1, replica)
        elif left == 2:
            if previous is None:
                raise DecodeError(INVALID_VALUE, f"{what} follows no run")
            run["after"] = ((previous["first"][0] + previous["count"] - 1) % 2**64, previous["replica"])
        elif left == 3:
            run["after"] = written("left")
        right = flags >> 4 & 3
        if right == 1:
            right_is_next.append(at)
        elif right == 2:
            if previous is None or "before" not in previous:
                raise DecodeError(INVALID_VALUE, f"{what} takes the right origin of a run that has none")
            run["before"] = previous["before"]
        elif right == 3:
            run["before"] = written("right")
        if flags & 0x01:
            run["deleted"] = True
        runs.append(run)
    for at in right_is_next:
        if at + 1 >= len(runs):
            raise DecodeError(INVALID_VALUE, "the last run takes its right origin from no next run")
        runs[at]["before"] = runs[at + 1]["first"]
    text = r.string("the characters not deleted", MAX_SNAPSHOT_SCALARS * 4, INVALID_VALUE)
    # What the model checks once the op is read (4.3, Op.validate).
    if not runs:
        raise DecodeError(INVALID_VALUE, "a text's snapshot of no runs")
    if len(text) > MAX_SNAPSHOT_SCALARS:
        raise DecodeError(INVALID_VALUE, f"{len(text)} characters in one piece of a snapshot")
    for run in runs:
        counter, replica = run["first"]
        if counter > 2**64 - 1 - run["count"]:
            raise DecodeError(INVALID_VALUE, "a run's counters reach past the largest")
        for side in ("after", "before"):
            origin = run.get(side)
            if origin and origin[1] == replica and origin[0] >= counter:
                raise DecodeError(INVALID_VALUE, f"a run's {side} origin is not typed before it")
    visible = sum(run["count"] for run in runs if not run.get("deleted"))
    if len(text) != visible:
        raise DecodeError(INVALID_VALUE, f"{len(text)} characters for {visible} not deleted")
    shown = []
    for run in runs:
        entry = {"first": op_id(*run["first"]), "count": run["count"]}
        for side in ("after", "before"):
            if side in run:
                entry[side] = op_id(*run[side])
        if run.get("deleted"):
            entry["deleted"] = True
        shown.append(entry)
    return {"entity": entity, "runs": shown, "text": text}


ACTION_BODIES: dict[str, Callable[[Reader, BatchState], dict]] = {
    "create": read_create, "set": read_set, "delete": read_entity_only,
    "restore": read_entity_only, "append": read_append,
    "insertText": read_insert_text, "deleteText": read_delete_text, "textSnapshot": read_text_snapshot,
}


def read_positioned_ops(r: Reader, max_ops: int) -> list[dict]:
    """Positioned ops (4.4): each op preceded by its position's difference from the previous one."""
    return read_op_batch(r, max_ops, positioned=True)


# ---------------------------------------------------------------------------------------------
# Presence and gestures (section 4.2)

def read_presence_body(r: Reader) -> dict:
    body: dict[str, Any] = {"replica": replica_hex(r.u64le("presence replica")),
                            "user": read_user(r)}
    flags = read_flags(r, "presence flags", 0x3F)
    if flags & 0x01:
        body["cursor"] = read_point(r)
    if flags & 0x02:
        body["viewport"] = read_rect(r)
    body["selection"] = read_entity_ids(r)
    if flags & 0x04:
        body["gesture"] = read_gesture(r)
    body["idle"] = bool(flags & 0x08)
    if flags & 0x10:
        position = r.uint("state position")
        body["state"] = {"position": str(position), "hash": f"{r.u64le('state hash'):016x}"}
    if flags & 0x20:
        caret = {"text": read_entity_id(r)}
        for place in ("anchor", "head"):
            # Counter 0 is the text's start; else the character it follows.
            counter = r.uint(f"caret {place} counter")
            if counter:
                caret[place] = op_id(counter, r.u64le(f"caret {place} replica"))
        body["caret"] = caret
    return body


def read_gesture(r: Reader) -> dict:
    kind = read_tagged(GESTURE_KINDS, r, "gesture kind")
    if kind == "drawing":
        return {"kind": kind, "tool": read_enum(TOOLS, r, "drawing tool"),
                "color": r.colour("drawing colour"), "weight": r.float32("drawing weight"),
                "points": [[r.float32("point x"), r.float32("point y")]
                           for _ in range(r.count("point", MAX_POINTS))]}
    gesture: dict[str, Any] = {"kind": kind, "entities": read_entity_ids(r)}
    if kind == "moving":
        gesture["dx"] = r.float32("dx")
        gesture["dy"] = r.float32("dy")
    elif kind == "scaling":
        gesture["factor"] = r.float32("factor")  # its range is not checked (spec 3.1)
    else:
        gesture["angle"] = r.float32("angle")
    return gesture


# ---------------------------------------------------------------------------------------------
# Messages (sections 2 and 4.2)

def read_hello(r: Reader) -> dict:
    message: dict[str, Any] = {"protocol": r.uint("protocol")}
    document = r.string("document", MAX_DOCUMENT_BYTES, INVALID_VALUE)
    if not DOCUMENT_NAME.fullmatch(document):
        raise DecodeError(INVALID_VALUE, f"bad document name {document!r}")
    message["document"] = document
    replica = r.u64le("hello replica")
    if replica == 0:
        raise DecodeError(INVALID_VALUE, "hello with replica 0")
    message["replica"] = replica_hex(replica)
    flags = read_flags(r, "hello flags", 0x03)
    if flags & 0x01:
        message["token"] = r.string("token", MAX_TOKEN_BYTES)
    if flags & 0x02:
        position = r.uint("since position")
        message["since"] = {"position": str(position), "epoch": replica_hex(r.u64le("since epoch"))}
    message["user"] = read_user(r)
    return message


def read_welcome(r: Reader) -> dict:
    message: dict[str, Any] = {"protocol": r.uint("protocol"),
                               "epoch": replica_hex(r.u64le("epoch")),
                               "position": str(r.uint("position"))}
    flags = read_flags(r, "welcome flags", 0x03)
    message["snapshot"] = bool(flags & 0x01)
    message["more"] = bool(flags & 0x02)
    if message["snapshot"]:
        message["ops"] = read_op_batch(r, MAX_MESSAGE_OPS)
    else:
        message["ops"] = read_positioned_ops(r, MAX_MESSAGE_OPS)
    message["peers"] = [read_presence_body(r) for _ in range(r.count("presence", MAX_PEERS))]
    return message


def read_push(r: Reader) -> dict:
    batch = r.uint("batch")
    r.batch = batch
    return {"batch": str(batch), "ops": read_op_batch(r, MAX_PUSH_OPS, min_ops=1)}


def read_ack(r: Reader) -> dict:
    return {"batch": str(r.uint("batch")), "first": str(r.uint("first")), "count": r.uint("count")}


def read_ops(r: Reader) -> dict:
    return {"ops": read_positioned_ops(r, MAX_MESSAGE_OPS)}


def read_leave(r: Reader) -> dict:
    return {"replica": replica_hex(r.u64le("leave replica"))}


def read_error(r: Reader) -> dict:
    code = r.uint("error code")
    if code > MAX_ERROR_CODE:
        raise DecodeError(INVALID_VALUE, f"error code {code} > {MAX_ERROR_CODE}")
    flags = read_flags(r, "error flags", 0x03)
    message: dict[str, Any] = {"code": code, "fatal": bool(flags & 0x01)}
    if flags & 0x02:
        message["batch"] = str(r.uint("batch"))
    message["message"] = r.string("error message", MAX_ERROR_MESSAGE_BYTES)
    return message


def read_nonce(r: Reader) -> dict:
    return {"nonce": str(r.uint("nonce"))}


MESSAGE_BODIES: dict[str, Callable[[Reader], dict]] = {
    "hello": read_hello, "welcome": read_welcome, "push": read_push, "ack": read_ack,
    "ops": read_ops, "presence": read_presence_body, "leave": read_leave, "error": read_error,
    "ping": read_nonce, "pong": read_nonce,
}


def decode(data: bytes) -> dict:
    """Decode one binary message into the dict its JSON encoding holds (section 5)."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise DecodeError(TOO_LARGE, f"message of {len(data)} bytes > {MAX_MESSAGE_BYTES}")
    r = Reader(data)
    version = r.u8("wire version")
    if version != WIRE_VERSION:
        raise DecodeError(UNSUPPORTED_WIRE_VERSION, f"wire version {version}")
    tag = r.u8("message tag")
    if tag not in MESSAGE_TAGS:
        raise DecodeError(UNKNOWN_MESSAGE_TYPE, f"message tag {tag}")
    name = MESSAGE_TAGS[tag]
    message = {"type": name}
    try:
        message.update(MESSAGE_BODIES[name](r))
        if r.left:
            raise DecodeError(TRAILING_BYTES, f"{r.left} bytes after the {name} message")
    except DecodeError as error:
        error.batch = r.batch
        raise
    return message


# ---------------------------------------------------------------------------------------------
# JSON text (section 5) and comparison

class JsonTextError(Exception):
    """Not JSON text for the protocol: error 110."""


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    result = {}
    for key, value in pairs:
        if key in result:
            raise JsonTextError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _reject_constant(name: str) -> Any:
    raise JsonTextError(f"{name} is not JSON")


def nesting_depth(value: Any) -> int:
    """Objects and arrays count one level each; the message object itself is level 1."""
    if isinstance(value, dict):
        return 1 + max((nesting_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((nesting_depth(v) for v in value), default=0)
    return 0


def has_lone_surrogate(value: Any) -> bool:
    """A \\ud800-style escape with no partner: a string that has no UTF-8 form (section 3.1)."""
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_lone_surrogate(v) for v in value)
    return False


def load_json(raw: bytes) -> Any:
    """Strict JSON: UTF-8, no duplicate keys, no NaN/Infinity, no lone surrogates, nesting <= 16."""
    try:
        text = raw.decode("utf-8")
        value = json.loads(text, object_pairs_hook=_object_without_duplicates,
                           parse_constant=_reject_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise JsonTextError(str(error)) from None
    depth = nesting_depth(value)
    if depth > MAX_JSON_DEPTH:
        raise JsonTextError(f"nesting of {depth} levels > {MAX_JSON_DEPTH}")
    if has_lone_surrogate(value):
        raise JsonTextError("a string with a lone surrogate escape")
    return value


def binary32(number: float | int) -> bytes | None:
    """The binary32 a JSON number reads as; None when out of range. -0 is 0."""
    try:
        packed = struct.pack("<f", number)
    except OverflowError:
        return None
    return bytes(4) if packed == b"\x00\x00\x00\x80" else packed


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def first_difference(decoded: Any, expected: Any, path: str = "$") -> str | None:
    """Where the decoded message and the JSON one differ, or None when they are the same."""
    if is_number(decoded) and is_number(expected):
        if isinstance(decoded, int) and isinstance(expected, int):
            same = decoded == expected
        else:
            same = binary32(decoded) is not None and binary32(decoded) == binary32(expected)
        return None if same else f"{path}: binary {decoded!r}, JSON {expected!r}"
    if type(decoded) is not type(expected):
        return f"{path}: binary {decoded!r}, JSON {expected!r}"
    if isinstance(decoded, dict):
        if decoded.keys() != expected.keys():
            return (f"{path}: keys differ: only in binary {sorted(decoded.keys() - expected.keys())},"
                    f" only in JSON {sorted(expected.keys() - decoded.keys())}")
        for key in decoded:
            difference = first_difference(decoded[key], expected[key], f"{path}.{key}")
            if difference:
                return difference
        return None
    if isinstance(decoded, list):
        if len(decoded) != len(expected):
            return f"{path}: {len(decoded)} items in binary, {len(expected)} in JSON"
        for i, (a, b) in enumerate(zip(decoded, expected)):
            difference = first_difference(a, b, f"{path}[{i}]")
            if difference:
                return difference
        return None
    return None if decoded == expected else f"{path}: binary {decoded!r}, JSON {expected!r}"


def schema_errors(validator: Any, message: Any, width: int = 200) -> list[str]:
    errors = sorted(validator.iter_errors(message), key=lambda e: list(e.absolute_path))
    lines = [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}" for e in errors]
    return [line if len(line) <= width else line[:width - 3] + "..." for line in lines]


# ---------------------------------------------------------------------------------------------
# Vectors

class VectorFileError(Exception):
    pass


def vector_path(entry: dict, key: str, base: Path) -> Path:
    if not isinstance(entry.get(key), str):
        raise VectorFileError(f"index entry without a {key!r} path")
    return base / entry[key]


def read_hex_file(path: Path) -> bytes:
    try:
        digits = "".join(path.read_text(encoding="ascii").split())
    except (OSError, UnicodeDecodeError) as error:
        raise VectorFileError(f"cannot read {path}: {error}") from None
    if not re.fullmatch(r"(?:[0-9a-f]{2})*", digits):
        raise VectorFileError(f"{path}: not an even number of lowercase hex digits")
    return bytes.fromhex(digits)


def read_bytes_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise VectorFileError(f"cannot read {path}: {error}") from None


def check_valid(entry: dict, base: Path, validator: Any) -> list[str]:
    name = entry.get("name", "?")
    failures = []
    decoded = None
    try:
        decoded = decode(read_hex_file(vector_path(entry, "binary", base)))
    except VectorFileError as error:
        failures.append(f"{name}: {error}")
    except DecodeError as error:
        failures.append(f"{name}: binary does not decode: {error}")
    except Exception as error:  # noqa: BLE001 - a decoder bug must not hide the other vectors
        failures.append(f"{name}: decoder crashed: {error!r}")
    if decoded is not None and decoded["type"] != entry.get("type"):
        failures.append(f"{name}: binary is a {decoded['type']}, index says {entry.get('type')}")

    try:
        expected = load_json(read_bytes_file(vector_path(entry, "json", base)))
    except (VectorFileError, JsonTextError) as error:
        return failures + [f"{name}: JSON: {error}"]
    failures += [f"{name}: JSON not schema-valid: {e}" for e in schema_errors(validator, expected)]
    if decoded is not None:
        difference = first_difference(decoded, expected)
        if difference:
            failures.append(f"{name}: binary and JSON differ at {difference}")
    return failures


def check_invalid(entry: dict, base: Path, validator: Any) -> tuple[list[str], list[str]]:
    """Returns (failures, notes)."""
    name, code, encoding = entry.get("name", "?"), entry.get("code"), entry.get("encoding")
    why = f" ({entry['why']})" if entry.get("why") else ""
    try:
        if encoding == "binary":
            data = read_hex_file(vector_path(entry, "file", base))
            return check_invalid_binary(name, code, expected_batch(entry), data, why), []
        if encoding == "json":
            raw = read_bytes_file(vector_path(entry, "file", base))
            return check_invalid_json(name, code, expected_batch(entry), raw, validator, why)
    except VectorFileError as error:
        return [f"{name}: {error}"], []
    return [f"{name}: unknown encoding {encoding!r}"], []


def expected_batch(entry: dict) -> int | None:
    return int(entry["batch"]) if "batch" in entry else None


UNCHECKED = object()  # the self-test's hand-built cases name no batch


def check_invalid_binary(name: str, code: int, batch: Any, data: bytes, why: str) -> list[str]:
    try:
        message = decode(data)
    except DecodeError as error:
        if error.code != code:
            return [f"{name}: expected error {code}, decoder gives {error}{why}"]
        if batch is not UNCHECKED and error.batch != batch:
            return [f"{name}: the refusal must name batch {batch}, the decoder read {error.batch}{why}"]
        return []
    except Exception as error:  # noqa: BLE001 - a decoder bug must not hide the other vectors
        return [f"{name}: expected error {code}, decoder crashed: {error!r}{why}"]
    return [f"{name}: expected error {code}, but it decodes as a {message['type']}{why}"]


def readable_batch(message: Any) -> int | None:
    """A JSON push's batch when its `batch` member is well formed (section 7: the refusal names it)."""
    if not isinstance(message, dict) or message.get("type") != "push":
        return None
    batch = message.get("batch")
    if not isinstance(batch, str) or not re.fullmatch(r"0|[1-9][0-9]*", batch) or int(batch) >= 2**64:
        return None
    return int(batch)


def check_invalid_json(name: str, code: int, batch: Any, raw: bytes, validator: Any,
                       why: str) -> tuple[list[str], list[str]]:
    try:
        message = load_json(raw)
    except JsonTextError as error:
        if batch is not UNCHECKED and batch is not None:
            return [f"{name}: names batch {batch}, but it is not JSON text{why}"], []
        if code == INVALID_JSON:
            return [], []
        if code == WRONG_TYPE:
            return [f"{name}: expected error 111, but it is not strict JSON (110): {error}{why}"], []
        return [], [f"{name}: (code {code}) not strict JSON (110): {error}"]
    if code == INVALID_JSON:
        return [f"{name}: expected error 110, but it is strict JSON nested <= {MAX_JSON_DEPTH}{why}"], []
    if batch is not UNCHECKED and readable_batch(message) != batch:
        return [f"{name}: the refusal must name batch {batch}, the message's batch reads "
                f"{readable_batch(message)}{why}"], []
    errors = schema_errors(validator, message)
    if code == WRONG_TYPE:
        return ([] if errors else [f"{name}: expected error 111, but the schema accepts it{why}"]), []
    verdict = f"schema rejects it: {errors[0]}" if errors else "schema accepts it"
    return [], [f"{name}: (code {code}) {verdict}"]


def load_schema(path: Path) -> Any:
    import jsonschema  # only needed here, so --self-test's decoder part works without it too

    def ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
        # JSON Schema patterns are ECMA-262, where `$` matches only at the very end; Python's `$`
        # also matches before a final newline, so "7\n" would pass "^[0-9]+$". The schema uses `$`
        # only as an end anchor (never escaped or in a class), so `\Z` is its Python equivalent.
        python_pattern = pattern.replace("$", r"\Z")
        if validator.is_type(instance, "string") and not re.search(python_pattern, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")

    schema = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator_class = jsonschema.validators.extend(jsonschema.Draft202012Validator,
                                                   {"pattern": ecma_pattern})
    return validator_class(schema)


def run_vectors(index_path: Path, schema_path: Path) -> int:
    if index_path.is_dir():
        index_path = index_path / "index.json"
    try:
        index = json.loads(index_path.read_text(encoding="utf-8"))
        validator = load_schema(schema_path)
    except Exception as error:  # noqa: BLE001 - any reason not to start is reported the same way
        print(f"cannot start: {error}")
        return 1
    base = index_path.parent
    failures: list[str] = []
    if index.get("protocol") != 4:
        failures.append(f"index: protocol {index.get('protocol')!r}, this checker reads 4")
    valid, invalid = index.get("valid", []), index.get("invalid", [])
    for entry in valid:
        failures += check_valid(entry, base, validator)
    for entry in invalid:
        entry_failures, notes = check_invalid(entry, base, validator)
        failures += entry_failures
        for note in notes:
            print(f"note: {note}")
    if "stateHash" in index:
        failures += check_state_hash(index["stateHash"], base)
    else:
        failures.append("index: no stateHash fixture")
    for failure in failures:
        print(failure)
    print(f"checked {len(valid)} valid vectors (binary decoded and compared, JSON schema-valid), "
          f"{len(invalid)} invalid vectors, the state hash and emoji key: {len(failures)} failures")
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------
# State hash (section 9)

MASK64 = (1 << 64) - 1
XXH_PRIME64 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
               0x27D4EB2F165667C5)


def _rotl64(value: int, count: int) -> int:
    return ((value << count) | (value >> (64 - count))) & MASK64


def _xxh64_round(accumulator: int, lane: int) -> int:
    accumulator = (accumulator + lane * XXH_PRIME64[1]) & MASK64
    return (_rotl64(accumulator, 31) * XXH_PRIME64[0]) & MASK64


def _xxh64_merge(accumulator: int, value: int) -> int:
    accumulator ^= _xxh64_round(0, value)
    return (accumulator * XXH_PRIME64[0] + XXH_PRIME64[3]) & MASK64


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 as the xxHash specification defines it, written from that specification."""
    p1, p2, p3, p4, p5 = XXH_PRIME64
    position, length = 0, len(data)
    if length >= 32:
        lanes = [(seed + p1 + p2) & MASK64, (seed + p2) & MASK64, seed, (seed - p1) & MASK64]
        while position + 32 <= length:
            for lane in range(4):
                word = int.from_bytes(data[position:position + 8], "little")
                lanes[lane] = _xxh64_round(lanes[lane], word)
                position += 8
        accumulator = (_rotl64(lanes[0], 1) + _rotl64(lanes[1], 7) + _rotl64(lanes[2], 12)
                       + _rotl64(lanes[3], 18)) & MASK64
        for lane in lanes:
            accumulator = _xxh64_merge(accumulator, lane)
    else:
        accumulator = (seed + p5) & MASK64
    accumulator = (accumulator + length) & MASK64
    while position + 8 <= length:
        accumulator ^= _xxh64_round(0, int.from_bytes(data[position:position + 8], "little"))
        accumulator = (_rotl64(accumulator, 27) * p1 + p4) & MASK64
        position += 8
    if position + 4 <= length:
        accumulator ^= (int.from_bytes(data[position:position + 4], "little") * p1) & MASK64
        accumulator = (_rotl64(accumulator, 23) * p2 + p3) & MASK64
        position += 4
    while position < length:
        accumulator ^= (data[position] * p5) & MASK64
        accumulator = (_rotl64(accumulator, 11) * p1) & MASK64
        position += 1
    accumulator ^= accumulator >> 33
    accumulator = (accumulator * p2) & MASK64
    accumulator ^= accumulator >> 29
    accumulator = (accumulator * p3) & MASK64
    return accumulator ^ (accumulator >> 32)


# The emoji key's alphabet, in the order of section 9's table.
EMOJI_ALPHABET = (
    "🐶🐱🐭🐹🐰🦊🐻🐼" "🐨🐯🦁🐮🐷🐸🐵🐔" "🐧🐦🐤🦆🦉🐴🦄🐝" "🐛🦋🐌🐞🐢🐍🐙🦀"
    "🐠🐬🐳🦈🐊🐘🦒🦓" "🌵🌲🌴🍀🍁🍄🌻🌹" "🍎🍌🍇🍓🍒🍑🍍🥕" "🌽🍕🍩🍪🎈🎁⚽🚀")


def emoji_key(state_hash: int) -> str:
    return "".join(EMOJI_ALPHABET[(state_hash >> (58 - 6 * index)) & 63] for index in range(4))


FIELD_TAGS = {spec.name: tag for tag, spec in FIELDS.items()}
FLOAT_FIELDS = {"x", "y", "scale", "rotation", "weight", "size", "width", "height"}
STRING_FIELDS = {"zKey", "character", "text", "font"}
ENUM_FIELDS = {"textStyle": TEXT_STYLES, "alignment": ALIGNMENTS, "shape": SHAPES, "tool": TOOLS,
               "endCap": END_CAPS, "fit": FITS}
KIND_TAGS = {name: tag for tag, name in KINDS.items()}


def parse_op_id(text: str) -> tuple[int, int]:
    """`counter@replica` as (counter, replica), which orders as OpIDs do (section 3)."""
    if text == "document":
        return 0, 0
    counter, replica = text.split("@")
    return int(counter), int(replica, 16)


def _uleb(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _f32(value: float) -> bytes:
    return struct.pack("<f", 0.0 if value == 0 else value)


def _stamp(op_id: tuple[int, int]) -> bytes:
    return _uleb(op_id[0]) + op_id[1].to_bytes(8, "little")


def _value(name: str, value: Any) -> bytes:
    if name in FLOAT_FIELDS:
        return _f32(value)
    if name in STRING_FIELDS:
        data = value.encode("utf-8")
        return _uleb(len(data)) + data
    if name in ("color", "fill"):
        return int(value[1:], 16).to_bytes(4, "little")
    if name in ENUM_FIELDS:
        return bytes([ENUM_FIELDS[name].index(value)])
    if name == "erases":  # section 9: count, then each entity's stamp-form ID and transform
        out = _uleb(len(value))
        for target in value:
            out += _stamp(parse_op_id(target["entity"]))
            out += b"".join(_f32(target[key]) for key in ("x", "y", "scale", "rotation"))
        return out
    return bytes.fromhex(value)  # blob


def canonical_encoding(ops: list[dict]) -> bytes:
    """A replica's state after `ops` (any order), encoded as section 9 lays out: last-writer-wins
    registers, an alive flag, and appends settled per sample index (section 3)."""
    records: dict[tuple[int, int], dict] = {}

    def record(entity: tuple[int, int]) -> dict:
        return records.setdefault(entity, {"kind": 0, "registers": {}, "appends": []})

    def write(entity: tuple[int, int], tag: int, stamp: tuple[int, int], value: bytes) -> None:
        registers = record(entity)["registers"]
        if tag not in registers or registers[tag][0] < stamp:  # one OpID never writes twice here
            registers[tag] = (stamp, value)

    for op in ops:
        stamp = parse_op_id(op["id"])
        action = op["op"]
        if action == "create":
            kind = KIND_TAGS[op["kind"]]
            record(stamp)["kind"] = max(record(stamp)["kind"], kind)
            write(stamp, 0, stamp, b"\x01")
            for name, value in op["fields"].items():
                write(stamp, FIELD_TAGS[name], stamp, _value(name, value))
        elif action == "set":
            ((name, value),) = op["fields"].items()
            write(parse_op_id(op["entity"]), FIELD_TAGS[name], stamp, _value(name, value))
        elif action in ("delete", "restore"):
            write(parse_op_id(op["entity"]), 0, stamp, b"\x01" if action == "restore" else b"\x00")
        else:
            samples = b"".join(
                _f32(x) + _f32(y) + _f32(t) + (b"\x01" + _f32(rest[0]) if rest else b"\x00")
                for x, y, t, *rest in op["samples"])
            append = (op["start"], stamp, len(op["samples"]), samples)
            if append not in record(parse_op_id(op["entity"]))["appends"]:
                record(parse_op_id(op["entity"]))["appends"].append(append)
    out = bytearray(b"EASL\x01") + _uleb(len(records))
    for entity in sorted(records):
        item = records[entity]
        out += _stamp(entity) + bytes([item["kind"]]) + _uleb(len(item["registers"]))
        for tag in sorted(item["registers"]):
            stamp, value = item["registers"][tag]
            out += bytes([tag]) + _stamp(stamp) + value
        out += _uleb(len(item["appends"]))
        # By start, then OpID (the fixture has no two appends with one OpID).
        for start, stamp, count, samples in sorted(item["appends"], key=lambda a: (a[0], a[1])):
            out += _uleb(start) + _stamp(stamp) + _uleb(count) + samples
    return bytes(out)


def check_state_hash(entry: dict, base: Path) -> list[str]:
    """The fixture's ops, applied in either order, give its canonical bytes, and those bytes hash
    to the listed XXH64 and emoji key."""
    try:
        canonical = read_hex_file(vector_path(entry, "canonical", base))
    except VectorFileError as error:
        return [f"state hash: {error}"]
    failures = []
    try:
        ops = decode(read_hex_file(vector_path(entry["ops"], "binary", base)))["ops"]
    except (VectorFileError, DecodeError, KeyError) as error:
        return [f"state hash: the fixture's ops do not read: {error}"]
    if canonical_encoding(ops) != canonical:
        failures.append("state hash: the canonical encoding built from the fixture's ops by section 9 "
                        "differs from canonical.hex")
    if canonical_encoding(list(reversed(ops))) != canonical:
        failures.append("state hash: the fixture's ops in reverse order give another canonical encoding")
    state_hash = xxh64(canonical)
    if f"{state_hash:016x}" != entry.get("xxh64"):
        failures.append(f"state hash: XXH64 of the canonical bytes is {state_hash:016x}, the index says "
                        f"{entry.get('xxh64')}")
    if emoji_key(state_hash) != entry.get("emojiKey"):
        failures.append(f"state hash: the emoji key is {emoji_key(state_hash)}, the index says "
                        f"{entry.get('emojiKey')}")
    return failures


# ---------------------------------------------------------------------------------------------
# Self-test: the worked example of section 4.3 and hand-built messages

def hex_bytes(text: str) -> bytes:
    """Hex digits with whitespace and `#` comments, as in the specification's examples."""
    return bytes.fromhex("".join(line.split("#")[0] for line in text.splitlines()))


WORKED_EXAMPLE = """
01 03                           # version 1, push
07                              # batch 7
01 ce 11 0a 00 00 00 00 00      # 1 replica: 0x00000000000a11ce
01 00 01                        # 1 entity: replica #0, counter 1
01                              # 1 op
32                              # header: set (2) | C (0x10) | T=1 (0x20)
04                              # counter delta +2 (zigzag of 2): 0 + 2 = 2
00                              # entity #0
01 00 00 48 41                  # field x = 12.5
"""

WORKED_EXAMPLE_JSON = {
    "type": "push", "batch": "7",
    "ops": [{"id": "2@00000000000a11ce", "tx": "2@00000000000a11ce", "op": "set",
             "entity": "1@00000000000a11ce", "fields": {"x": 12.5}}],
}

ALICE_HEX = "05 41 6c 69 63 65  01 41  ff 00 00 ff"  # user Alice, A, #ff0000ff
ALICE = {"name": "Alice", "initials": "A", "color": "#ff0000ff"}
A11CE = "ce 11 0a 00 00 00 00 00"                  # replica 00000000000a11ce
B0B0 = "b0 b0 00 00 00 00 00 00"                   # replica 000000000000b0b0

VALID_CASES: list[tuple[str, str, dict]] = [
    ("section 4.3 worked example", WORKED_EXAMPLE, WORKED_EXAMPLE_JSON),
    ("hello with token and since", f"""
        01 01                   # hello
        01                      # protocol 1
        07 62 6f 61 72 64 2f 31 # document "board/1"
        {A11CE}                 # replica
        03                      # flags: token, since
        03 61 62 63             # token "abc"
        0c ef cd ab 89 67 45 23 01   # since position 12, epoch 0123456789abcdef
        {ALICE_HEX}""",
     {"type": "hello", "protocol": 1, "document": "board/1", "replica": "00000000000a11ce",
      "token": "abc", "since": {"position": "12", "epoch": "0123456789abcdef"}, "user": ALICE}),
    ("hello, minimal", f"01 01 01 01 61 {A11CE} 00 {ALICE_HEX}",
     {"type": "hello", "protocol": 1, "document": "a", "replica": "00000000000a11ce", "user": ALICE}),
    ("welcome snapshot with a create and a peer", f"""
        01 02 01 ef cd ab 89 67 45 23 01   # welcome, protocol 1, epoch
        2a                      # position 42
        01                      # flags: snapshot
        01 {A11CE}              # 1 replica
        00                      # no entities
        01                      # 1 op
        31 0a                   # create | C | T=1; counter 0 + 5
        01 05                   # emoji, 5 fields
        0c 03 e2 ad 90          # character "\u2b50"
        09 00 00 20 42          # size 40
        01 00 00 20 41          # x 10
        02 00 00 a4 c1          # y -20.5
        05 02 61 30             # zKey "a0"
        01                      # 1 peer
        {B0B0}
        03 42 6f 62 01 42 00 80 ff ff   # user Bob, B, #0080ffff
        0b                      # flags: cursor, viewport, idle
        00 00 80 3f 00 00 00 40 # cursor (1, 2)
        00 00 00 00 00 00 00 00 00 00 48 44 00 00 16 44   # viewport (0, 0, 800, 600)
        01 05 {A11CE}           # selection: 5@00000000000a11ce
        """,
     {"type": "welcome", "protocol": 1, "epoch": "0123456789abcdef", "position": "42",
      "snapshot": True, "more": False,
      "ops": [{"id": "5@00000000000a11ce", "tx": "5@00000000000a11ce", "op": "create",
               "kind": "emoji",
               "fields": {"character": "\u2b50", "size": 40, "x": 10, "y": -20.5, "zKey": "a0"}}],
      "peers": [{"replica": "000000000000b0b0",
                 "user": {"name": "Bob", "initials": "B", "color": "#0080ffff"},
                 "cursor": {"x": 1, "y": 2}, "viewport": {"x": 0, "y": 0, "width": 800, "height": 600},
                 "selection": ["5@00000000000a11ce"], "idle": True}]}),
    ("ops: tables, R/C/T bits, negative delta, force bitmap, positions", f"""
        01 05                   # ops
        02 {A11CE} {B0B0}       # 2 replicas
        02 00 05 00 08          # 2 entities: 5@a11ce, 8@a11ce
        05                      # 5 ops
        ac 02                   # position 300
        52 0c 00 05 00 01 00 00 30 41   # set | C | T=2; counter +6; tx #0/5; entity #0; x = 11
        01 23 00                # position +1; delete | T=1; counter 7; entity #0
        01 55 04 00 08          # position +1; append | C | T=2; counter 7 + 2 = 9; tx #0/8
        01 00 02 02 01          # entity #1, start 0, 2 samples, force bitmap 0b01
        00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 3f   # (0, 0, 0, 0.5)
        00 00 40 40 00 00 80 40 6f 12 83 3c               # (3, 4, 0.016)
        05 3c 01 0b 00          # position +5; restore | R | C | T=1; replica #1; counter 9 - 6 = 3; entity #0
        01 02 00 07 00 00 00 00 # position +1; set | T=0; counter 4, tx 3@b0b0; entity #0; fill #00000000
        """,
     {"type": "ops", "ops": [
         {"id": "6@00000000000a11ce", "tx": "5@00000000000a11ce", "op": "set",
          "entity": "5@00000000000a11ce", "fields": {"x": 11}, "position": "300"},
         {"id": "7@00000000000a11ce", "tx": "7@00000000000a11ce", "op": "delete",
          "entity": "5@00000000000a11ce", "position": "301"},
         {"id": "9@00000000000a11ce", "tx": "8@00000000000a11ce", "op": "append",
          "entity": "8@00000000000a11ce", "start": 0, "samples": [[0, 0, 0, 0.5], [3, 4, 0.016]],
          "position": "302"},
         {"id": "3@000000000000b0b0", "tx": "3@000000000000b0b0", "op": "restore",
          "entity": "5@00000000000a11ce", "position": "307"},
         {"id": "4@000000000000b0b0", "tx": "3@000000000000b0b0", "op": "set",
          "entity": "5@00000000000a11ce", "fields": {"fill": "#00000000"}, "position": "308"}]}),
    ("welcome tail, more to come", f"""
        01 02 01 00 00 00 00 00 00 00 00 05   # welcome, protocol 1, epoch 0, position 5
        02                      # flags: more
        01 {A11CE} 01 00 07 01  # 1 replica, 1 entity 7@a11ce, 1 op
        05 23 00                # position 5; delete | T=1, counter 1, entity #0
        00                      # no peers
        """,
     {"type": "welcome", "protocol": 1, "epoch": "0000000000000000", "position": "5",
      "snapshot": False, "more": True,
      "ops": [{"id": "1@00000000000a11ce", "tx": "1@00000000000a11ce", "op": "delete",
               "entity": "7@00000000000a11ce", "position": "5"}], "peers": []}),
    ("push: creates of every other kind, an append ending at index 2^32 - 2", f"""
        01 03 00                # push, batch 0
        01 {A11CE}              # 1 replica
        01 00 01                # 1 entity: 1@a11ce
        05                      # 5 ops
        21 04 03 12 03 13 01 05 03 61 31 7a   # create | T=1; stroke: tool neon, endCap arrow, zKey "a1z"
        21 03 05 0d 02 68 69 0e 00 0f 02 10 01 09 00 00 20 42
                                # create text: text "hi", font "", framed, center, size 40
        01 05 02 14 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f
                    10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f
                    0a 00 00 48 44   # create | T=0 (tx 2@a11ce); image: blob 00..1f, width 800
        25 00 fe ff ff ff 0f 01 01   # append | T=1; entity #0, start 2^32 - 2, 1 sample, all forces
        00 00 80 3f 00 00 00 40 00 00 80 3e 00 00 80 3f   # (1, 2, 0.25, force 1)
        21 02 02 11 03 07 11 22 33 44   # create shape: star, fill #11223344
        """,
     {"type": "push", "batch": "0", "ops": [
         {"id": "1@00000000000a11ce", "tx": "1@00000000000a11ce", "op": "create", "kind": "stroke",
          "fields": {"tool": "neon", "endCap": "arrow", "zKey": "a1z"}},
         {"id": "2@00000000000a11ce", "tx": "2@00000000000a11ce", "op": "create", "kind": "text",
          "fields": {"text": "hi", "font": "", "textStyle": "framed", "alignment": "center", "size": 40}},
         {"id": "3@00000000000a11ce", "tx": "2@00000000000a11ce", "op": "create", "kind": "image",
          "fields": {"blob": bytes(range(32)).hex(), "width": 800}},
         {"id": "4@00000000000a11ce", "tx": "4@00000000000a11ce", "op": "append",
          "entity": "1@00000000000a11ce", "start": 4294967294, "samples": [[1, 2, 0.25, 1]]},
         {"id": "5@00000000000a11ce", "tx": "5@00000000000a11ce", "op": "create", "kind": "shape",
          "fields": {"shape": "star", "fill": "#11223344"}}]}),
    ("push: a counter delta of -1 from 0 wraps to 2^64 - 1", f"""
        01 03 07 01 {A11CE} 01 00 01 01
        32 01 00 01 00 00 48 41  # set | C | T=1; counter 0 - 1 mod 2^64
        """,
     {"type": "push", "batch": "7", "ops": [
         {"id": "18446744073709551615@00000000000a11ce", "tx": "18446744073709551615@00000000000a11ce",
          "op": "set", "entity": "1@00000000000a11ce", "fields": {"x": 12.5}}]}),
    ("push: x at the canvas's edge, 1,000,000", f"01 03 07 01 {A11CE} 01 00 01 01 32 04 00 01 00 24 74 49",
     {"type": "push", "batch": "7", "ops": [
         {"id": "2@00000000000a11ce", "tx": "2@00000000000a11ce",
          "op": "set", "entity": "1@00000000000a11ce", "fields": {"x": 1000000}}]}),
    ("presence with a drawing gesture", f"""
        01 06 {A11CE} {ALICE_HEX}
        04                      # flags: gesture
        00                      # empty selection
        04 03 00 00 00 ff 00 00 40 40   # drawing, neon, #000000ff, weight 3
        02 00 00 80 3f 00 00 00 40 00 00 40 40 00 00 80 40   # points (1, 2), (3, 4)
        """,
     {"type": "presence", "replica": "00000000000a11ce", "user": ALICE, "selection": [],
      "gesture": {"kind": "drawing", "tool": "neon", "color": "#000000ff", "weight": 3,
                  "points": [[1, 2], [3, 4]]}, "idle": False}),
    ("presence with a moving gesture, idle", f"""
        01 06 {A11CE} {ALICE_HEX} 0c 00
        01 01 05 {A11CE} 00 00 40 40 00 00 80 c0   # moving 5@a11ce by (3, -4)
        """,
     {"type": "presence", "replica": "00000000000a11ce", "user": ALICE, "selection": [],
      "gesture": {"kind": "moving", "entities": ["5@00000000000a11ce"], "dx": 3, "dy": -4},
      "idle": True}),
    ("ack", "01 04 07 ac 02 03", {"type": "ack", "batch": "7", "first": "300", "count": 3}),
    ("leave", f"01 07 {A11CE}", {"type": "leave", "replica": "00000000000a11ce"}),
    ("error with a batch", "01 08 cc 01 03 07 04 6f 6f 70 73",
     {"type": "error", "code": 204, "fatal": True, "batch": "7", "message": "oops"}),
    ("error without a batch", "01 08 c8 01 00 00",
     {"type": "error", "code": 200, "fatal": False, "message": ""}),
    ("ping with the largest nonce", "01 09 ff ff ff ff ff ff ff ff ff 01",
     {"type": "ping", "nonce": "18446744073709551615"}),
    ("pong", "01 0a 00", {"type": "pong", "nonce": "0"}),
]


def uleb(n: int) -> str:
    """Varint as hex, for the hand-built cases too long to write out."""
    out = []
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out).hex()


def push_of(ops: str, replicas: str = f"01 {A11CE}", entities: str = "01 00 01", count: int = 1) -> str:
    """A push with batch 7 and the given tables and op bytes."""
    return f"01 03 07 {replicas} {entities} {count:02x} {ops}"


HELLO_HEAD = f"01 01 01 01 61 {A11CE}"      # hello, protocol 1, document "a", replica
PRESENCE_HEAD = f"01 06 {A11CE} {ALICE_HEX}"  # presence, replica, user
APPEND_HEAD = "25 00 00"                     # append | T=1; entity #0, start 0
SAMPLE = "00" * 12
SET_X = "32 04 00 01 00 00 48 41"            # the worked example's op: set | C | T=1, x = 12.5

INVALID_CASES: list[tuple[str, str, int]] = [
    ("empty message", "", 100),
    ("version only", "01", 100),
    ("wire version 2", "02 09 00", 103),
    ("message tag 0", "01 00", 104),
    ("message tag 11", "01 0b 00", 104),
    ("varint cut short", "01 09 80", 100),
    ("varint not minimal", "01 09 80 00", 101),
    ("varint above 2^64 - 1", "01 09 ff ff ff ff ff ff ff ff ff 02", 101),
    ("varint of 11 bytes", "01 09 80 80 80 80 80 80 80 80 80 80 00", 101),
    ("trailing byte", "01 09 00 00", 102),
    ("worked example cut short", WORKED_EXAMPLE.rsplit("41", 1)[0], 100),
    ("worked example with a trailing byte", WORKED_EXAMPLE + " 00", 102),
    ("T=0 on the first op", push_of("12 04 00 01 00 00 48 41"), 108),
    ("action 0", push_of("30 04 00 01 00 00 48 41"), 105),
    ("action 0", push_of("30 04 00 01 00 00 48 41"), 105),
    ("header bit 7", push_of("b2 04 00 01 00 00 48 41"), 105),
    ("transaction mode 3", push_of("72 04 00 01 00 00 48 41"), 105),
    ("counter 0", push_of("32 00 00 01 00 00 48 41"), 108),
    ("counter 2^64 - 1 + 1", push_of("32 01 00 01 00 00 48 41 22 00 01 00 00 48 41", count=2), 108),
    ("entity index past the table", push_of("32 04 01 01 00 00 48 41"), 108),
    ("replica index past the table", push_of("3a 01 04 00 01 00 00 48 41"), 108),
    ("no replica table, inherited index 0", push_of(SET_X, "00", "00"), 108),
    ("entity table replica index past the table", push_of(SET_X, entities="01 01 01"), 108),
    ("entity table counter 0", push_of(SET_X, entities="01 00 00"), 108),
    ("replica count beyond the input", push_of(SET_X, f"05 {A11CE}"), 106),
    ("op count beyond the input", f"01 03 07 01 {A11CE} 01 00 01 c8 01 {SET_X}", 106),
    ("push of no ops", f"01 03 07 01 {A11CE} 00 00", 108),
    ("x is NaN", push_of("32 04 00 01 00 00 c0 7f"), 107),
    ("x is infinite", push_of("32 04 00 01 00 00 80 ff"), 107),
    ("x is beyond the canvas", push_of("32 04 00 01 00 24 f4 49"), 108),
    ("field tag 23", push_of("32 04 00 17 00 00 48 41"), 105),
    ("field tag 0", push_of("32 04 00 00 00 00 48 41"), 105),
    ("enum value past its names", push_of("32 04 00 11 05"), 105),
    ("zKey without digits", push_of("32 04 00 05 01 61"), 108),
    ("zKey whose fraction ends in 0", push_of("32 04 00 05 03 61 30 30"), 108),
    ("zKey with a short integer part", push_of("32 04 00 05 02 62 30"), 108),
    ("zKey with a non-base-62 digit", push_of("32 04 00 05 02 61 2d"), 108),
    ("zKey of 129 bytes", push_of("32 04 00 05 " + uleb(129) + ("61" + "31" * 128)), 108),
    ("character of 65 bytes", push_of("32 04 00 0c 41" + "61" * 65), 109),
    ("text string with bad UTF-8", push_of("32 04 00 0d 02 c3 28"), 108),
    ("string length beyond the input", push_of("32 04 00 0d 7f 61"), 106),
    ("create of unknown kind", push_of("21 06 00", entities="00"), 105),
    ("create with a foreign field", push_of("21 01 01 0a 00 00 20 41", entities="00"), 108),
    ("create with a field twice", push_of("21 01 02 01 00 00 20 41 01 00 00 20 41", entities="00"), 108),
    ("transaction of another replica",
     push_of("52 04 01 01 00 01 00 00 48 41", f"02 {A11CE} {B0B0}"), 108),
    ("transaction with a later counter", push_of("52 04 00 03 00 01 00 00 48 41"), 108),
    ("transaction 0 named", push_of("52 04 00 00 00 01 00 00 48 41"), 108),
    ("T=0 inherited across a replica change",
     push_of("32 04 00 01 00 00 48 41 0a 01 00 01 00 00 48 41", f"02 {A11CE} {B0B0}", count=2), 108),
    ("append of 0 samples", push_of(f"{APPEND_HEAD} 00 00"), 108),
    ("append of 4097 samples", push_of(f"{APPEND_HEAD} {uleb(4097)} 00 " + SAMPLE * 4097), 108),
    ("append start 2^32", push_of(f"25 00 80 80 80 80 10 01 00 {SAMPLE}"), 108),
    ("append start + count > 2^32 - 1", push_of(f"25 00 ff ff ff ff 0f 01 00 {SAMPLE}"), 108),
    ("append samples beyond the input", push_of(f"{APPEND_HEAD} 02 00 {SAMPLE}"), 106),
    ("force mode 3", push_of(f"{APPEND_HEAD} 01 03 {SAMPLE}"), 105),
    ("force bitmap unused bit", push_of(f"{APPEND_HEAD} 01 02 03 {SAMPLE} 00 00 00 00"), 108),
    ("position difference 0", f"01 05 01 {A11CE} 01 00 01 01 00 23 00", 108),
    ("position above 2^64 - 1", f"01 05 01 {A11CE} 01 00 01 02 ff ff ff ff ff ff ff ff ff 01 23 00 "
                                "01 23 00", 108),
    ("op cut short after its position", f"01 05 01 {A11CE} 01 00 01 01 80 01 23", 100),
    ("hello with replica 0", f"01 01 01 01 61 {'00' * 8} 00 {ALICE_HEX}", 108),
    ("hello flag bit 2", f"{HELLO_HEAD} 04 {ALICE_HEX}", 105),
    ("hello document starting with -", f"01 01 01 02 2d 78 {A11CE} 00 {ALICE_HEX}", 108),
    ("hello document with a space", f"01 01 01 03 61 20 62 {A11CE} 00 {ALICE_HEX}", 108),
    ("hello document empty", f"01 01 01 00 {A11CE} 00 {ALICE_HEX}", 108),
    ("hello document of 129 bytes", f"01 01 01 {uleb(129)} {'61' * 129} {A11CE} 00 {ALICE_HEX}", 108),
    ("hello token of 4097 bytes", f"{HELLO_HEAD} 01 {uleb(4097)} {'74' * 4097} {ALICE_HEX}", 109),
    ("user name of 65 bytes", f"01 06 {A11CE} 41 {'6e' * 65} 01 41 ff 00 00 ff 00 00", 109),
    ("user initials of 17 bytes", f"01 06 {A11CE} 01 6e 11 {'41' * 17} ff 00 00 ff 00 00", 109),
    ("presence flag bit 6", f"{PRESENCE_HEAD} 40 00", 105),
    ("presence state without its hash", f"{PRESENCE_HEAD} 10 00 2a 01 02 03", 100),
    ("selection of 1025 entities", f"{PRESENCE_HEAD} 00 {uleb(1025)} " + f"05 {A11CE} " * 1025, 109),
    ("selection entity with counter 0", f"{PRESENCE_HEAD} 00 01 00 {A11CE}", 108),
    ("gesture kind 0", f"{PRESENCE_HEAD} 04 00 00", 105),
    ("gesture kind 5", f"{PRESENCE_HEAD} 04 00 05", 105),
    ("drawing tool 7", f"{PRESENCE_HEAD} 04 00 04 07 00 00 00 ff 00 00 40 40 00", 105),
    ("drawing of 1025 points",
     f"{PRESENCE_HEAD} 04 00 04 00 00 00 00 ff 00 00 40 40 {uleb(1025)} " + "00" * 8 * 1025, 109),
    ("welcome flag bit 2", f"01 02 01 {'00' * 8} 00 04 00 00 00 00", 105),
    ("welcome of 1025 peers",
     f"01 02 01 {'00' * 8} 00 01 00 00 00 {uleb(1025)} " + f"{A11CE} 00 00 00 00 00 00 00 00" * 1025, 109),
    ("error code 65536", "01 08 80 80 04 00 00", 108),
    ("error flag bit 2", "01 08 00 04 00", 105),
    ("error message of 1025 bytes", f"01 08 00 00 {uleb(1025)} " + "65" * 1025, 109),
    ("push of 4097 ops", f"01 03 07 01 {A11CE} 01 00 01 {uleb(4097)} " + "23 00 " * 4097, 109),
    ("ops message of 65537 ops",
     f"01 05 01 {A11CE} 01 00 01 {uleb(65537)} " + "23 00 " * 65537 + "01 " * 65537, 109),
    ("message over 1 MiB", "01 09 00" + "00" * (MAX_MESSAGE_BYTES - 2), 109),
]

# JSON texts and the error they must give in the checks run on the vectors (110: strict JSON
# parsing fails; 111: the schema refuses), or None when the schema must accept them.
JSON_CASES: list[tuple[str, str, int | None]] = [
    ("duplicate key", '{"type":"ping","nonce":"1","nonce":"2"}', 110),
    ("NaN", '{"type":"pong","nonce":NaN}', 110),
    ("lone surrogate", '{"type":"error","code":1,"fatal":false,"message":"\\udc00"}', 110),
    ("surrogate pair", '{"type":"error","code":1,"fatal":false,"message":"\\ud83d\\udc34"}', None),
    ("17 levels", '{"type":"ping","nonce":"1","x":' + "[" * 16 + "]" * 16 + "}", 110),
    ("16 levels", '{"type":"ping","nonce":"1","x":' + "[" * 15 + "]" * 15 + "}", None),
    ("unknown keys are ignored", '{"type":"ping","nonce":"1","extra":{"a":1}}', None),
    ("nonce as a number", '{"type":"ping","nonce":1}', 111),
    ("nonce missing", '{"type":"ping"}', 111),
    ("nonce with a leading zero", '{"type":"ping","nonce":"01"}', 111),
    ("nonce with a final newline", '{"type":"ping","nonce":"1\\n"}', 111),
    ("unknown type", '{"type":"bye"}', 111),
    ("set of two fields", '{"type":"push","batch":"1","ops":[{"id":"2@00000000000a11ce",'
     '"tx":"2@00000000000a11ce","op":"set","entity":"1@00000000000a11ce","fields":{"x":1,"y":2}}]}', 111),
    ("unknown field name", '{"type":"push","batch":"1","ops":[{"id":"2@00000000000a11ce",'
     '"tx":"2@00000000000a11ce","op":"set","entity":"1@00000000000a11ce","fields":{"z":1}}]}', 111),
    ("largest binary32", '{"type":"presence","replica":"00000000000a11ce","user":{"name":"","initials":"",'
     '"color":"#00000000"},"cursor":{"x":3.4028235e38,"y":-3.4028235e38},"selection":[],"idle":false}', None),
    ("beyond binary32", '{"type":"presence","replica":"00000000000a11ce","user":{"name":"","initials":"",'
     '"color":"#00000000"},"cursor":{"x":3.4028236e38,"y":0},"selection":[],"idle":false}', 111),
    ("tail welcome op without a position", '{"type":"welcome","protocol":1,"epoch":"0000000000000000",'
     '"position":"1","snapshot":false,"more":false,"ops":[{"id":"1@00000000000a11ce",'
     '"tx":"1@00000000000a11ce","op":"delete","entity":"1@00000000000a11ce"}],"peers":[]}', 111),
    ("create with a field of another kind", '{"type":"push","batch":"1","ops":[{"id":"1@00000000000a11ce",'
     '"tx":"1@00000000000a11ce","op":"create","kind":"emoji","fields":{"width":1}}]}', 111),
]


def self_test_valid(validator: Any) -> list[str]:
    failures = []
    for name, text, expected in VALID_CASES:
        try:
            decoded = decode(hex_bytes(text))
        except DecodeError as error:
            failures.append(f"{name}: does not decode: {error}")
            continue
        difference = first_difference(decoded, expected)
        if difference:
            failures.append(f"{name}: decoded message differs at {difference}")
        if validator is not None:
            failures += [f"{name}: expected JSON not schema-valid: {e}"
                         for e in schema_errors(validator, expected)]
    return failures


def self_test_invalid() -> list[str]:
    failures = []
    for name, text, code in INVALID_CASES:
        failures += check_invalid_binary(name, code, UNCHECKED, hex_bytes(text), "")
    return failures


def self_test_json(validator: Any) -> list[str]:
    failures = []
    for name, text, code in JSON_CASES:
        if code is not None:
            failures += check_invalid_json(name, code, UNCHECKED, text.encode(), validator, "")[0]
            continue
        try:
            errors = schema_errors(validator, load_json(text.encode()))
        except JsonTextError as error:
            errors = [f"not strict JSON: {error}"]
        failures += [f"{name}: should be accepted: {e}" for e in errors]
    return failures


def run_self_test(schema_path: Path) -> int:
    failures = []
    try:
        validator = load_schema(schema_path)
    except Exception as error:  # noqa: BLE001 - the decoder tests still run without a schema
        failures.append(f"cannot load the schema {schema_path}: {error}")
        validator = None
    failures += self_test_valid(validator)
    failures += self_test_invalid()
    if validator is not None:
        failures += self_test_json(validator)
    for failure in failures:
        print(failure)
    worked = "ok" if not any(f.startswith(VALID_CASES[0][0]) for f in failures) else "FAILED"
    print(f"self-test: worked example of section 4.3 {worked}; {len(VALID_CASES)} valid and "
          f"{len(INVALID_CASES)} invalid binary messages, {len(JSON_CASES)} JSON texts: "
          f"{len(failures)} failures")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    tools = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vectors", nargs="?", type=Path, default=tools.parent / "vectors",
                        help="vectors/index.json or its folder (default: %(default)s)")
    parser.add_argument("--schema", type=Path, default=tools.parent / "schema" / "easel.v1.schema.json",
                        help="the JSON Schema (default: %(default)s)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the decoder and schema on built-in messages instead of the vectors")
    args = parser.parse_args(argv)
    if args.self_test:
        return run_self_test(args.schema)
    return run_vectors(args.vectors, args.schema)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
