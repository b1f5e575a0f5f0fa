"""Frame times of the web canvas in real Chromium: a page opens a document
of N entities, selects 100 of them and drags them for a few seconds while
bots edit the same document; the page's animation frames are timed.

    swift build -c release --product easel && Web/build.sh
    python3 Web/bench/frames.py --entities 10000,50000 [--bots 5] [--seconds 5] [--runs 3]

It starts its own `easel serve` (release build) on a free port over a fresh
database seeded through `easel log import`, and stops it. Prints, for each
size and run, page open to first full paint, and the p50 / p95 / p99 / max
of the intervals between animation frames while dragging (60 Hz is 16.7
ms), then the medians over the runs."""

import argparse
import json
import pathlib
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
EASEL = ROOT / ".build" / "release" / "easel"
SITE = ROOT / ".build-wasm" / "site"
REPLICA = "00000000000be4c1"
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
EMOJI = ["⭐️", "🦊", "🌲", "🎈", "❤️", "😀", "🍕", "🚀"]
SELECTED = 100


def z_key(index):
    """Increasing keys: `c` and three base-62 digits (238,328 of them)."""
    digits = ""
    for _ in range(3):
        index, digit = divmod(index, 62)
        digits = DIGITS[digit] + digits
    return "c" + digits


def seed_log(count, columns=250, spacing=24.0):
    """A log of `count` emoji in a grid; the first 100 sit in the top-left
    10 × 10 cells, where the page selects them."""
    lines = [json.dumps({"log": "easel", "version": 1, "document": "bench", "epoch": "00000000000000b1"})]
    for index in range(count):
        counter = index + 1
        row, column = divmod(index, columns)
        if index < SELECTED:
            row, column = divmod(index, 10)
        else:
            row += 10
        op = {"id": f"{counter}@{REPLICA}", "tx": f"{counter}@{REPLICA}", "op": "create", "kind": "emoji",
              "fields": {"character": EMOJI[index % len(EMOJI)], "size": 20.0,
                         "x": 20.0 + column * spacing, "y": 20.0 + row * spacing, "zKey": z_key(index)}}
        lines.append(json.dumps({"position": str(counter), "replica": REPLICA, "counter": str(counter),
                                 "author": "bench", "receivedAt": 1795000000000, "op": op},
                                ensure_ascii=False))
    return "\n".join(lines) + "\n"


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(count, bots, seconds, folder):
    database = folder / f"bench-{count}-{time.monotonic_ns()}.db"
    imported = subprocess.run([str(EASEL), "log", "import", "--db", str(database), "--doc", "bench"],
                              input=seed_log(count), capture_output=True, text=True)
    if imported.returncode != 0:
        sys.exit(f"seeding failed: {imported.stderr}")
    server = subprocess.Popen([str(EASEL), "serve", "--port", "0", "--db", str(database), "--web", str(SITE),
                               "--log-level", "warning"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    fleet = None
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                     "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        port = re.search(r"ws://127\.0\.0\.1:(\d+)", server.stdout.readline()).group(1)
        driver.get(f"http://127.0.0.1:{port}/d/bench")
        deadline = time.time() + 120
        while not driver.execute_script("return performance.getEntriesByName('easel:first-paint').length"):
            if time.time() > deadline:
                sys.exit("the page never painted the document")
            time.sleep(0.05)
        first_paint = driver.execute_script("return performance.getEntriesByName('easel:first-paint')[0].startTime")
        drawn = driver.execute_script("return document.querySelectorAll('#entities > g').length")

        box = driver.execute_script(
            "const b = document.getElementById('canvas').getBoundingClientRect(); return [b.left, b.top];")
        # Select the 100 in the top-left block through the page's own taps,
        # before the bots start moving things about.
        for index in range(SELECTED):
            row, column = divmod(index, 10)
            x, y = box[0] + 20 + column * 24, box[1] + 20 + row * 24
            for kind in ("mousePressed", "mouseReleased"):
                driver.execute_cdp_cmd("Input.dispatchMouseEvent",
                                       {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        selected = driver.execute_script("return window.easel.session.selection.length")

        fleet = subprocess.Popen(
            [str(EASEL), "bot", "--url", f"ws://127.0.0.1:{port}", "--doc", "bench", "--bots", str(bots),
             "--random", "--rate", "2", "--duration", f"{seconds + 20}s"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2)

        driver.execute_script("""
            window.benchFrames = [];
            let last = performance.now();
            const frame = (now) => { window.benchFrames.push(now - last); last = now;
                                     if (!window.benchStop) requestAnimationFrame(frame); };
            requestAnimationFrame(frame);""")
        start_x, start_y = box[0] + 20, box[1] + 20
        driver.execute_cdp_cmd("Input.dispatchMouseEvent",
                               {"type": "mousePressed", "x": start_x, "y": start_y, "button": "left",
                                "clickCount": 1})
        began = time.time()
        step = 0
        while time.time() - began < seconds:
            step += 1
            offset = (step % 200) * 2
            driver.execute_cdp_cmd("Input.dispatchMouseEvent",
                                   {"type": "mouseMoved", "x": start_x + offset, "y": start_y + offset / 2,
                                    "button": "left", "buttons": 1})
            time.sleep(0.008)
        driver.execute_cdp_cmd("Input.dispatchMouseEvent",
                               {"type": "mouseReleased", "x": start_x, "y": start_y, "button": "left",
                                "clickCount": 1})
        frames = driver.execute_script("window.benchStop = true; return window.benchFrames.slice(1);")
        return {"entities": count, "drawn": drawn, "selected": selected, "first paint ms": round(first_paint),
                "frames": len(frames), "moves": step,
                "p50": percentile(frames, 0.5), "p95": percentile(frames, 0.95), "p99": percentile(frames, 0.99),
                "max": max(frames), "mean": statistics.fmean(frames)}
    finally:
        driver.quit()
        if fleet and fleet.poll() is None:
            fleet.send_signal(signal.SIGINT)
            try:
                fleet.wait(timeout=10)
            except subprocess.TimeoutExpired:
                fleet.kill()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entities", default="10000,50000")
    parser.add_argument("--bots", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    for path in (EASEL, SITE / "canvas.html"):
        if not path.exists():
            sys.exit(f"missing {path}: run `swift build -c release --product easel` and `Web/build.sh`")
    with tempfile.TemporaryDirectory() as folder:
        for count in (int(n) for n in arguments.entities.split(",")):
            results = []
            for _ in range(arguments.runs):
                result = run(count, arguments.bots, arguments.seconds, pathlib.Path(folder))
                results.append(result)
                print(f"{result['entities']:>6} entities ({result['drawn']} drawn, {result['selected']} selected), "
                      f"{arguments.bots} bots: first full paint {result['first paint ms']} ms; "
                      f"{result['frames']} frames while dragging ({result['moves']} moves): "
                      f"p50 {result['p50']:.1f} ms, p95 {result['p95']:.1f} ms, p99 {result['p99']:.1f} ms, "
                      f"max {result['max']:.1f} ms", flush=True)
            middle = {key: statistics.median(r[key] for r in results) for key in ("first paint ms", "p50", "p95")}
            print(f"{count:>6} entities, median of {len(results)}: first full paint {middle['first paint ms']:.0f} ms, "
                  f"frame p50 {middle['p50']:.1f} ms, p95 {middle['p95']:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
