"""The peers' side of `easel bench text`: an editing trace replayed by Loro or
by Yrs (through pycrdt), then merged into a fresh document.

The trace is one of josephg/editing-traces' sequential traces
(`{"startContent", "endContent", "txns": [{"patches": [[pos, del, text]]}]}`,
positions in Unicode scalars), as JSON or gzipped JSON. Every patch is
replayed on one document, committed one at a time as typed; the updates of
the whole history are then imported by a fresh document, and only that
import is timed as the merge. Both documents must end as `endContent`.
Prints one JSON line: {"peer", "replay_seconds", "merge_seconds",
"update_bytes", "snapshot_bytes"}. The replay time includes Python's own
cost of a call a patch; the merge is one call, into a fresh document.

With `--serve`, the first line has no merges, and then each line "merge"
on standard input times one merge and answers {"merge_seconds": s}, until
standard input ends: `easel bench text` times its own merge and the
peers' in turn, so that a slow spell of a shared machine falls on both.
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


def replay_loro(trace):
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
    def merge():
        receiver = LoroDoc()
        start = time.perf_counter()
        receiver.import_(updates)
        return time.perf_counter() - start, receiver.get_text("text").to_string()
    return replay, merge, len(updates), len(snapshot)


def replay_yrs(trace):
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
    def merge():
        receiver = Doc()
        receiver["text"] = received = Text()
        start = time.perf_counter()
        receiver.apply_update(update)
        return time.perf_counter() - start, str(received)
    # Yrs has no separate snapshot form: the state as one update is it.
    return replay, merge, len(update), len(update)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", choices=["loro", "yrs"], required=True)
    parser.add_argument("--trace", required=True)
    parser.add_argument("--serve", action="store_true", help="time a merge for each line 'merge' on standard input")
    args = parser.parse_args()
    trace = load(args.trace)
    if trace.get("startContent"):
        sys.exit("text_trace.py replays traces that start empty")
    replay, merge, update_bytes, snapshot_bytes = (replay_loro if args.peer == "loro" else replay_yrs)(trace)

    def timed_merge():
        # As `easel bench text` does before each of its merges: a core woken
        # from waiting on standard input runs a merge slower at first.
        awake = time.perf_counter() + 0.02
        while time.perf_counter() < awake:
            pass
        seconds, merged = merge()
        if merged != trace["endContent"]:
            sys.exit(f"{args.peer}: the merged text is not the trace's end content")
        return seconds

    result = {"peer": args.peer, "replay_seconds": replay, "update_bytes": update_bytes, "snapshot_bytes": snapshot_bytes}
    if not args.serve:
        result["merge_seconds"] = timed_merge()
        print(json.dumps(result))
        return
    print(json.dumps(result), flush=True)
    for line in sys.stdin:
        if line.strip() != "merge":
            sys.exit(f"text_trace.py --serve reads 'merge' lines, not {line.strip()!r}")
        print(json.dumps({"merge_seconds": timed_merge()}), flush=True)


if __name__ == "__main__":
    main()
