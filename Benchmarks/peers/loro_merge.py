"""Loro's side of `easel bench merge`: the same canvas workload, merged by Loro.

1,000 entities (a map each, in a root map) created by one peer; then
`--sets` random writes of x, y, scale or rotation spread over `--writers`
peers, committed every 100 writes (one gesture). A fresh document that holds
the entities imports every writer's updates; only that import is timed.
Prints one JSON line: {"peer": "loro", "sets": N, "seconds": S, "bytes": B}.
"""
import json
import random
import sys
import time

from merge_workload import FIELDS, GESTURE, arguments, writes

try:
    from loro import ExportMode, LoroDoc, LoroMap, VersionVector
except ImportError:
    sys.exit("loro_merge.py needs Loro's Python package: python3 -m pip install loro")


def main() -> None:
    args = arguments()
    rng = random.Random(args.seed)

    base = LoroDoc()
    base.peer_id = 1
    root = base.get_map("entities")
    keys = [f"e{i}" for i in range(args.entities)]
    for key in keys:
        entity = root.insert_container(key, LoroMap())
        for field in FIELDS:
            entity.insert(field, 0.0)
    base.commit()
    base_snapshot = base.export(ExportMode.Snapshot())
    base_version = base.oplog_vv

    updates = []
    for writer in range(args.writers):
        doc = LoroDoc()
        doc.peer_id = 100 + writer
        doc.import_(base_snapshot)
        entities = doc.get_map("entities")
        handles = [entities.get(key) for key in keys]
        handles = [h.container if hasattr(h, "container") else h for h in handles]
        for index, entity, field, value in writes(rng, args.sets // args.writers, len(handles)):
            handles[entity].insert(field, value)
            if index % GESTURE == GESTURE - 1:
                doc.commit()
        doc.commit()
        updates.append(doc.export(ExportMode.Updates(base_version)))

    receiver = LoroDoc()
    receiver.import_(base_snapshot)
    start = time.perf_counter()
    receiver.import_batch(updates)
    seconds = time.perf_counter() - start
    sets = args.sets // args.writers * args.writers
    print(json.dumps({"peer": "loro", "version": "1.17.1", "sets": sets, "seconds": seconds,
                      "bytes": sum(len(u) for u in updates)}))


if __name__ == "__main__":
    main()
