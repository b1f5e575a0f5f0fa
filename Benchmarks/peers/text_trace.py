"""The peers' side of `easel bench text`: an editing trace replayed by Loro or
by Yrs (through pycrdt), then merged into a fresh document.

The trace is one of josephg/editing-traces' sequential traces
(`{"startContent", "endContent", "txns": [{"patches": [[pos, del, text]]}]}`,
positions in Unicode scalars), as JSON or gzipped JSON. Every patch is
replayed on one document, committed one at a time as typed; the updates of
the whole history are then imported by a fresh document, and only that
import is timed as the merge. Both documents must end as `endContent`.
The merge is timed `--merges` times, each into a fresh document. Prints one
JSON line: {"peer", "replay_seconds", "merge_seconds" (a list, one a
merge), "update_bytes", "snapshot_bytes"}. The replay time includes
Python's own cost of a call a patch; each merge is one call.
"""
import argparse
import gzip
import json
import sys
import time


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as file:
        return json.load(file)


def replay_loro(trace, merges):
    try:
        from loro import ExportMode, LoroDoc
    except ImportError:
        sys.exit("text_trace.py --peer loro needs Loro's Python package: python3 -m pip install loro")
    doc = LoroDoc()
    doc.peer_id = 1
    text = doc.get_text("text")
    start = time.perf_counter()
    for txn in trace["txns"]:
        for position, deleted, inserted in txn["patches"]:
            if deleted:
                text.delete(position, deleted)
            if inserted:
                text.insert(position, inserted)
        doc.commit()
    replay = time.perf_counter() - start
    updates = doc.export(ExportMode.Updates(doc.__class__().oplog_vv))
    snapshot = doc.export(ExportMode.Snapshot())
    times = []
    for _ in range(merges):
        receiver = LoroDoc()
        start = time.perf_counter()
        receiver.import_(updates)
        times.append(time.perf_counter() - start)
    return replay, times, len(updates), len(snapshot), receiver.get_text("text").to_string()


def replay_yrs(trace, merges):
    try:
        from pycrdt import Doc, Text
    except ImportError:
        sys.exit("text_trace.py --peer yrs needs pycrdt (Yrs' Python package): python3 -m pip install pycrdt")
    doc = Doc(client_id=1)
    doc["text"] = text = Text()
    start = time.perf_counter()
    for txn in trace["txns"]:
        with doc.transaction():
            for position, deleted, inserted in txn["patches"]:
                if deleted:
                    del text[position : position + deleted]
                if inserted:
                    text.insert(position, inserted)
    replay = time.perf_counter() - start
    update = doc.get_update()
    times = []
    for _ in range(merges):
        receiver = Doc()
        receiver["text"] = received = Text()
        start = time.perf_counter()
        receiver.apply_update(update)
        times.append(time.perf_counter() - start)
    # Yrs has no separate snapshot form: the state as one update is it.
    return replay, times, len(update), len(update), str(received)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", choices=["loro", "yrs"], required=True)
    parser.add_argument("--trace", required=True)
    parser.add_argument("--merges", type=int, default=1, help="how many times the merge is timed")
    args = parser.parse_args()
    trace = load(args.trace)
    if trace.get("startContent"):
        sys.exit("text_trace.py replays traces that start empty")
    replay, merge, update_bytes, snapshot_bytes, merged = (replay_loro if args.peer == "loro" else replay_yrs)(
        trace, max(1, args.merges))
    if merged != trace["endContent"]:
        sys.exit(f"{args.peer}: the merged text is not the trace's end content")
    print(json.dumps({
        "peer": args.peer, "replay_seconds": replay, "merge_seconds": merge,
        "update_bytes": update_bytes, "snapshot_bytes": snapshot_bytes,
    }))


if __name__ == "__main__":
    main()
