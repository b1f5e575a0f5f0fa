"""Yrs's side of `easel bench merge`: the same canvas workload, merged by Yrs
(the Rust Yjs port, through its Python binding pycrdt).

1,000 entities (a map each, in a root map) created by one client; then
`--sets` random writes of x, y, scale or rotation spread over `--writers`
clients, one transaction every 100 writes (one gesture). A fresh document
that holds the entities applies every writer's update; only that is timed.
Prints one JSON line: {"peer": "yrs", "sets": N, "seconds": S, "bytes": B}.
"""
import importlib.metadata
import json
import random
import sys
import time

from merge_workload import FIELDS, GESTURE, arguments, writes

try:
    from pycrdt import Doc, Map
except ImportError:
    sys.exit("yrs_merge.py needs pycrdt (Yrs's Python binding): python3 -m pip install pycrdt")


def main() -> None:
    args = arguments()
    rng = random.Random(args.seed)

    base = Doc(client_id=1)
    root = base.get("entities", type=Map)
    keys = [f"e{i}" for i in range(args.entities)]
    with base.transaction():
        for key in keys:
            root[key] = Map({field: 0.0 for field in FIELDS})
    base_update = base.get_update()
    base_state = base.get_state()

    updates = []
    per_writer = args.sets // args.writers
    for writer in range(args.writers):
        doc = Doc(client_id=100 + writer)
        doc.apply_update(base_update)
        entities = doc.get("entities", type=Map)
        handles = [entities[key] for key in keys]
        planned = list(writes(rng, per_writer, len(handles)))
        for start in range(0, per_writer, GESTURE):
            with doc.transaction():
                for _, entity, field, value in planned[start:start + GESTURE]:
                    handles[entity][field] = value
        updates.append(doc.get_update(base_state))

    receiver = Doc()
    receiver.apply_update(base_update)
    start = time.perf_counter()
    for update in updates:
        receiver.apply_update(update)
    seconds = time.perf_counter() - start
    print(json.dumps({"peer": "yrs", "version": importlib.metadata.version("pycrdt"), "sets": per_writer * args.writers,
                      "seconds": seconds, "bytes": sum(len(u) for u in updates)}))


if __name__ == "__main__":
    main()
