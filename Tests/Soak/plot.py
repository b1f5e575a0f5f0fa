#!/usr/bin/env python3
"""Draws a soak's samples (`easel chaos soak --samples FILE`) as one PNG:
the server's memory, file descriptors, rooms and connections, queues, and
the acknowledgements' 99th percentile, each over time, with the warm-up
shaded. Needs matplotlib (Debian's python3-matplotlib, or pip).

    python3 Tests/Soak/plot.py SAMPLES.csv OUT.png [WARM_UP_SECONDS]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def column(rows, name):
    return [float(row[name]) if row[name] != "" else float("nan") for row in rows]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as file:
        rows = list(csv.DictReader(file))
    if not rows:
        sys.exit(f"plot: {sys.argv[1]} has no samples")
    warm_up = float(sys.argv[3]) if len(sys.argv) > 3 else 0
    minutes = [float(row["seconds"]) / 60 for row in rows]
    panels = [
        ("server memory (RSS, MB)", [("rss_mb", None)]),
        ("open file descriptors", [("fds", None)]),
        ("connections, rooms, bots", [("connections", "connections"), ("rooms", "rooms"), ("bots", "bots")]),
        ("queued (kB) and ops awaiting storage", [("queued_kb", "queued kB"), ("ops_awaiting_storage", "ops awaiting storage")]),
        ("ack p99 (ms), per second", [("ack_p99_ms", None)]),
    ]
    figure, axes = plt.subplots(len(panels), 1, figsize=(9, 2.1 * len(panels)), sharex=True)
    for axis, (title, series) in zip(axes, panels):
        for name, label in series:
            axis.plot(minutes, column(rows, name), linewidth=0.9, label=label)
        axis.set_title(title, fontsize=9, loc="left")
        axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3)
        if warm_up > 0:
            axis.axvspan(0, warm_up / 60, color="grey", alpha=0.15, linewidth=0)
        if any(label for _, label in series):
            axis.legend(fontsize=7, loc="upper right")
        axis.tick_params(labelsize=8)
    axes[-1].set_xlabel("minutes (grey: warm-up, not judged)", fontsize=9)
    figure.tight_layout()
    figure.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
