"""Frame times of the web canvas in real Chromium, and where they go: a page
opens a board of N entities (emoji, shapes, texts, strokes and images mixed
as a real board has them) while bots edit it, and its animation frames are
timed in three cases, first at zoom 1 and then zoomed out until every
entity is in view:

- drag: 100 selected entities dragged about;
- pan: the view panned with the wheel and zoomed with Ctrl + wheel;
- bots: nothing done on the page while the bots edit.

    swift build -c release --product easel && Web/build.sh
    python3 Web/bench/frames.py --entities 1000,10000,50000 [--bots 5] [--seconds 5] [--runs 3] [--json out.json]
        [--traces folder] [--profiles folder] [--no-trace]

It starts its own `easel serve` (release build) on a free port over a fresh
database seeded through `easel log import` (the images' bytes uploaded over
HTTP), and stops it. For each size it prints, per run and then as medians
over the runs: page open to first full paint, the renderer's memory, how
long zooming out to fit takes to draw every tile on screen (the fitted
cases start once it has), and for each view and case the intervals between animation frames (p50, p95,
p99; at 60 Hz an interval comes in steps of 16.7 ms, so the share of frames
over 16.7 ms and over 33 ms says how many were dropped), what the tiles did
a frame (time drawing, entities painted, canvases changed and made), and, from
Chromium's trace of the same seconds, the main thread's busy time a frame
(p50, p95) split into script, style, layout and paint (painting, paint
invalidation, layerizing and committing), and the raster and compositor
threads' time a frame. Tracing costs the page time of its own: `--no-trace`
times the frames without it (and without the split); `--traces` keeps each
case's trace for Chromium's or Perfetto's trace viewer."""

import argparse
import hashlib
import json
import os
import pathlib
import re
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

from websockets.sync.client import connect

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
EASEL = ROOT / ".build" / "release" / "easel"
SITE = ROOT / ".build-wasm" / "site"
REPLICA = "00000000000be4c1"
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
EMOJI = ["⭐️", "🦊", "🌲", "🎈", "❤️", "😀", "🍕", "🚀"]
SHAPES = ["rectangle", "ellipse", "star", "bubble"]
COLORS = ["#e03131ff", "#2f9e44ff", "#1971c2ff", "#f08c00ff"]
SELECTED = 100
# The selected block's first column: clear of the page's style panel, which
# floats over the canvas's left edge.
BLOCK_COLUMN = 5
CELL = 24.0
COLUMNS = 250
VIEWS = ("zoom 1", "fit")
CASES = ("drag", "pan", "bots")
# A 60 Hz frame is 16.7 ms; the slack takes in the clock's jitter.
BUDGETS = (16.7, 33.3)
SLACK = 1.0
# Where `--traces` keeps each case's trace (for Chromium's or Perfetto's
# trace viewer), if anywhere.
TRACE_FOLDER = None
# Where `--profiles` keeps each case's JavaScript CPU profile (for
# DevTools' Performance panel), if anywhere.
PROFILE_FOLDER = None
# Set by --load-only: first paint and memory, no cases.
LOAD_ONLY = False


def z_key(index):
    """Increasing keys: `c` and three base-62 digits (238,328 of them)."""
    digits = ""
    for _ in range(3):
        index, digit = divmod(index, 62)
        digits = DIGITS[digit] + digits
    return "c" + digits


def png(width, height, rgb):
    """A plain PNG of one colour, with a darker frame."""
    rows = b""
    for y in range(height):
        row = bytearray()
        for x in range(width):
            edge = x < 2 or y < 2 or x >= width - 2 or y >= height - 2
            row += bytes(c // 2 for c in rgb) if edge else bytes(rgb)
        rows += b"\0" + bytes(row)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


IMAGES = [png(40, 30, rgb) for rgb in ((230, 80, 60), (60, 160, 90), (50, 110, 200), (240, 170, 30))]


def seed_log(count):
    """A log of `count` entities in a grid. The first 100 are emoji in a
    10 × 10 block at the top left, where the page selects them; of the rest, in
    every 20: 14 emoji, 2 shapes, 2 texts, a stroke of 24 samples and an
    image."""
    lines = [json.dumps({"log": "easel", "version": 1, "document": "bench", "epoch": "00000000000000b1"})]
    counter = 0

    def add(op):
        nonlocal counter
        lines.append(json.dumps({"position": str(counter), "replica": REPLICA, "counter": str(counter),
                                 "author": "bench", "receivedAt": 1795000000000, "op": op}, ensure_ascii=False))

    def op_id():
        nonlocal counter
        counter += 1
        return f"{counter}@{REPLICA}"

    for index in range(count):
        if index < SELECTED:
            row, column = divmod(index, 10)
            column += BLOCK_COLUMN
        else:
            row, column = divmod(index - SELECTED, COLUMNS)
            row += 10
        x, y = 20.0 + column * CELL, 20.0 + row * CELL
        kind = index % 20 if index >= SELECTED else 0
        where = {"x": x, "y": y, "zKey": z_key(index)}
        if kind < 14:
            fields = {"character": EMOJI[index % len(EMOJI)], "size": 20.0, **where}
            created = op_id()
            add({"id": created, "tx": created, "op": "create", "kind": "emoji", "fields": fields})
        elif kind < 16:
            fields = {"shape": SHAPES[index % len(SHAPES)], "width": 20.0, "height": 16.0,
                      "fill": COLORS[index % len(COLORS)], **where}
            created = op_id()
            add({"id": created, "tx": created, "op": "create", "kind": "shape", "fields": fields})
        elif kind < 18:
            fields = {"text": f"Note {index}", "size": 7.0, **where}
            created = op_id()
            add({"id": created, "tx": created, "op": "create", "kind": "text", "fields": fields})
        elif kind == 18:
            created = op_id()
            add({"id": created, "tx": created, "op": "create", "kind": "stroke",
                 "fields": {"tool": "pen", "weight": 2.0, "color": COLORS[index % len(COLORS)], **where}})
            samples = [[-9.0 + step * 0.75, 6.0 * ((step % 8) / 4.0 - 1.0) * (1 if step % 16 < 8 else -1),
                        step * 0.016] for step in range(24)]
            appended = op_id()
            add({"id": appended, "tx": appended, "op": "append", "entity": created, "start": 0, "samples": samples})
        else:
            image = IMAGES[index % len(IMAGES)]
            created = op_id()
            add({"id": created, "tx": created, "op": "create", "kind": "image",
                 "fields": {"blob": hashlib.sha256(image).hexdigest(), "width": 40.0, "height": 30.0, "scale": 0.5,
                            **where}})
    return "\n".join(lines) + "\n"


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


# Chromium's trace events by what they are (DevTools' categories).
SCRIPT = {"FunctionCall", "EvaluateScript", "TimerFire", "FireAnimationFrame", "EventDispatch", "FireIdleCallback",
          "v8.compile", "V8.Execute", "RunMicrotasks", "v8.run", "GCEvent", "MajorGC", "MinorGC",
          "V8.GC_SCAVENGER", "V8.GCFinalizeMC", "V8.GCIncrementalMarking", "ParseHTML"}
STYLE = {"UpdateLayoutTree", "RecalculateStyles", "ScheduleStyleRecalculation", "InvalidateLayout"}
LAYOUT = {"Layout", "UpdateLayout"}
PAINT = {"Paint", "PrePaint", "Layerize", "UpdateLayer", "UpdateLayerTree", "Commit", "PaintImage",
         "CompositeLayers", "PaintSetup", "Decode Image", "ImageDecodeTask", "Decode LazyPixelRef"}


def category(name):
    for label, names in (("script", SCRIPT), ("style", STYLE), ("layout", LAYOUT), ("paint", PAINT)):
        if name in names:
            return label
    return None


def analyse_trace(events):
    """The main thread's busy time a frame (its top-level tasks between two
    frames' starts) with its split by category (self time, each event's own
    or its nearest categorised parent's), and the raster and compositor
    threads' time a frame."""
    names = {}
    for event in events:
        if event.get("ph") == "M" and event.get("name") == "thread_name":
            names[(event["pid"], event["tid"])] = event["args"]["name"]
    main = {key for key, name in names.items() if name == "CrRendererMain"}
    if not main:
        main = {(e["pid"], e["tid"]) for e in events if e.get("name") in ("FireAnimationFrame", "BeginMainThreadFrame")}
    complete = [e for e in events if e.get("ph") == "X" and "dur" in e]
    on_main = sorted((e for e in complete if (e["pid"], e["tid"]) in main), key=lambda e: (e["ts"], -e["dur"]))
    starts = sorted(e["ts"] for e in events
                    if (e.get("pid"), e.get("tid")) in main and e.get("name") == "BeginMainThreadFrame")
    # Top-level tasks, and each event's self time (its time less its
    # children's) counted to its category, or to its nearest categorised
    # parent's.
    top = []
    split = {"script": 0.0, "style": 0.0, "layout": 0.0, "paint": 0.0, "other": 0.0}
    stack = []

    def close(entry):
        split[entry["label"] or "other"] += entry["dur"] - entry["children"]

    for event in on_main:
        while stack and event["ts"] >= stack[-1]["end"]:
            close(stack.pop())
        if stack:
            stack[-1]["children"] += event["dur"]
        else:
            top.append(event)
        label = category(event["name"]) or (stack[-1]["label"] if stack else None)
        stack.append({"end": event["ts"] + event["dur"], "label": label, "dur": event["dur"], "children": 0.0})
    while stack:
        close(stack.pop())
    frames = max(len(starts) - 1, 1)
    busy = []
    for begin, end in zip(starts, starts[1:]):
        busy.append(sum(e["dur"] for e in top if begin <= e["ts"] < end) / 1000)
    compositor_threads = {key for key, name in names.items() if name in ("Compositor", "VizCompositorThread")}

    def outermost(spans):
        """The time covered by these (start, duration) spans of one thread."""
        total, reach = 0.0, 0.0
        for start, duration in sorted(spans):
            if start + duration > reach:
                total += start + duration - max(start, reach)
                reach = start + duration
        return total

    by_thread = {}
    for event in complete:
        key = (event["pid"], event["tid"])
        if key in compositor_threads:
            by_thread.setdefault(key, []).append((event["ts"], event["dur"]))
    compositor = sum(outermost(spans) for spans in by_thread.values())
    # Software raster runs as RasterTask on the thread pool's workers.
    rasters = {}
    for event in complete:
        if event["name"] == "RasterTask":
            rasters.setdefault((event["pid"], event["tid"]), []).append((event["ts"], event["dur"]))
    raster = sum(outermost(spans) for spans in rasters.values())

    return {"main p50": percentile(busy, 0.5), "main p95": percentile(busy, 0.95),
            **{f"{label} a frame": max(value, 0.0) / 1000 / frames for label, value in split.items()},
            "raster a frame": raster / 1000 / frames, "compositor a frame": compositor / 1000 / frames,
            "traced frames": len(starts)}


class Tracer:
    """Chromium's trace of some seconds, through the DevTools protocol on
    the browser's own endpoint: every process, so the raster and compositor
    threads too. (chromedriver's performance log had delivered trace events
    only now and then.)"""

    CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline",
                  "disabled-by-default-devtools.timeline.frame", "toplevel", "v8", "cc", "viz"]

    def __init__(self, driver):
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/version") as answer:
            self.endpoint = json.load(answer)["webSocketDebuggerUrl"]
        self.last_id = 0

    def __enter__(self):
        self.connection = connect(self.endpoint, max_size=None, open_timeout=10)
        self.socket = self.connection.__enter__()
        return self

    def __exit__(self, *failure):
        self.connection.__exit__(*failure)

    def call(self, method, params=None):
        self.last_id += 1
        self.socket.send(json.dumps({"id": self.last_id, "method": method, "params": params or {}}))
        return self.last_id

    def start(self):
        called = self.call("Tracing.start", {"traceConfig": {"includedCategories": self.CATEGORIES},
                                             "transferMode": "ReportEvents"})
        while json.loads(self.socket.recv(timeout=30)).get("id") != called:
            pass

    def stop(self):
        """The events since `start`."""
        self.call("Tracing.end")
        events = []
        while True:
            message = json.loads(self.socket.recv(timeout=120))
            if message.get("method") == "Tracing.dataCollected":
                events.extend(message["params"]["value"])
            elif message.get("method") == "Tracing.tracingComplete":
                return events


def renderer_memory_mb():
    """The proportional set size of Chromium's renderer processes (this
    bench's only page), in MB."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            command = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"chromium" not in command or b"--type=renderer" not in command:
                continue
            for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def memory_parts(driver):
    """Where the renderer's memory goes, as far as the page can tell: the
    module's linear memory, the JavaScript heap in use, the tiles' canvases
    (4 bytes a pixel) and the document's elements."""
    heap = driver.execute_cdp_cmd("Runtime.getHeapUsage", {})
    counters = driver.execute_cdp_cmd("Memory.getDOMCounters", {})
    page = driver.execute_script("""
        const tiled = window.easel.view.tiled;
        let pixels = 0;
        for (const canvas of document.querySelectorAll('canvas')) pixels += canvas.width * canvas.height;
        return { module: window.easel.module.exports.memory.buffer.byteLength, canvasPixels: pixels,
                 tiles: tiled ? tiled.tiles.size : 0 };""")
    return {"module MB": page["module"] / 2**20, "js heap MB": heap["usedSize"] / 2**20,
            "canvases MB": page["canvasPixels"] * 4 / 2**20, "tiles": page["tiles"], "nodes": counters["nodes"]}


def heaviest_functions(profile, count=8):
    """The functions with the most self time in a V8 CPU profile: (ms, name
    and place), heaviest first."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    deltas = profile.get("timeDeltas", [])
    spent = {}
    for sample, delta in zip(profile.get("samples", []), deltas[1:] + [0]):
        frame = nodes[sample]["callFrame"]
        name = f"{frame['functionName'] or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1]}:{frame['lineNumber'] + 1}"
        spent[name] = spent.get(name, 0) + delta / 1000
    return sorted(((ms, name) for name, ms in spent.items()), reverse=True)[:count]


def frames_while(driver, tracer, seconds, action, label=""):
    """Intervals between animation frames while `action(step)` is called
    every 8 ms for `seconds`, with the trace of those seconds (and, with
    `--profiles`, the page's JavaScript profile)."""
    if tracer:
        tracer.start()
    if PROFILE_FOLDER:
        driver.execute_cdp_cmd("Profiler.enable", {})
        driver.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 200})
        driver.execute_cdp_cmd("Profiler.start", {})
    # Each case's loop stops for good when the next begins: a loop that only
    # checked a flag could see the next case clear it and run on beside it.
    driver.execute_script("""
        const frames = window.benchFrames = [];
        const generation = window.benchGeneration = (window.benchGeneration ?? 0) + 1;
        let last = performance.now();
        // The most entities the moving layer held (view.mjs): a drag moved
        // as one layer, or entity by entity.
        window.benchMoving = 0;
        const frame = (now) => { if (window.benchGeneration !== generation) return;
                                 frames.push(now - last); last = now;
                                 const moving = document.getElementById('moving');
                                 if (moving?.isConnected) window.benchMoving = Math.max(window.benchMoving,
                                   moving.firstElementChild?.childElementCount ?? 0);
                                 requestAnimationFrame(frame); };
        requestAnimationFrame(frame);
        const tiled = window.easel.view.tiled;
        if (tiled) tiled.stats = { made: 0, mends: 0, painted: 0, specks: 0, ms: 0 };""")
    began = time.time()
    step = 0
    while time.time() - began < seconds:
        step += 1
        action(step)
        time.sleep(0.008)
    frames = driver.execute_script("window.benchGeneration += 1; return window.benchFrames.slice(1);")
    tiles = driver.execute_script("return window.easel.view.tiled?.stats ?? null")
    moving = driver.execute_script("return window.benchMoving")
    if PROFILE_FOLDER:
        profile = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
        (PROFILE_FOLDER / f"{label}.cpuprofile").write_text(json.dumps(profile))
        print(f"      {label}: " + "; ".join(f"{name} {ms:.0f} ms" for ms, name in heaviest_functions(profile)),
              flush=True)
    traced = {}
    if tracer:
        events = tracer.stop()
        if TRACE_FOLDER:
            path = TRACE_FOLDER / f"trace-{time.monotonic_ns()}.json"
            path.write_text(json.dumps({"traceEvents": events}))
        traced = analyse_trace(events)
    over = {f"over {budget:g}": sum(1 for f in frames if f > budget + SLACK) / max(len(frames), 1)
            for budget in BUDGETS}
    tiled = {f"tiles {name}": value / max(len(frames), 1) for name, value in (tiles or {}).items()}
    return {"frames": len(frames), "p50": percentile(frames, 0.5), "p95": percentile(frames, 0.95),
            "p99": percentile(frames, 0.99), "max": max(frames, default=0.0), "moved as one layer": moving,
            **over, **traced, **tiled}


def wait_for_whole_screen(driver, since, most=30.0):
    """Milliseconds from `since` (time.monotonic()) until the screen shows
    every tile drawn at the view's zoom, with every entity in view brought
    in (the module brings in a few thousand a render); None when it never
    did within `most` seconds, or the page draws no tiles."""
    while time.monotonic() - since < most:
        settled = driver.execute_script("const t = window.easel.view.tiled;"
                                        "return t ? t.isSettled() && !window.easel.session.flags.moreToDraw : null")
        if settled is None:
            return None
        if settled:
            return (time.monotonic() - since) * 1000
        time.sleep(0.02)
    return None


def mouse(driver, kind, x, y, **extra):
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **extra})


def run(count, bots, seconds, folder, traced=True):
    database = folder / f"bench-{count}-{time.monotonic_ns()}.db"
    imported = subprocess.run([str(EASEL), "log", "import", "--db", str(database), "--doc", "bench"],
                              input=seed_log(count), capture_output=True, text=True)
    if imported.returncode != 0:
        sys.exit(f"seeding failed: {imported.stderr}")
    server = subprocess.Popen([str(EASEL), "serve", "--port", "0", "--db", str(database), "--web", str(SITE),
                               "--log-level", "warning"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                     "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        if not traced:
            return measure(driver, None, count, bots, seconds, server)
        with Tracer(driver) as tracer:
            return measure(driver, tracer, count, bots, seconds, server)
    finally:
        driver.quit()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)


def measure(driver, tracer, count, bots, seconds, server):
    """The figures of one page of `count` entities, the bots started and
    stopped here."""
    fleet = None
    try:
        port = re.search(r"ws://127\.0\.0\.1:(\d+)", server.stdout.readline()).group(1)
        for image in IMAGES:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/blobs/{hashlib.sha256(image).hexdigest()}?doc=bench", data=image,
                method="PUT", headers={"Content-Length": str(len(image))})
            with urllib.request.urlopen(request) as answer:
                if answer.status not in (200, 201):
                    sys.exit(f"uploading an image answered {answer.status}")
        if PROFILE_FOLDER:
            # The load too, with the module that names its functions.
            driver.execute_cdp_cmd("Profiler.enable", {})
            driver.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 200})
            driver.execute_cdp_cmd("Profiler.start", {})
        driver.get(f"http://127.0.0.1:{port}/d/bench" + ("?debug" if PROFILE_FOLDER else ""))
        deadline = time.time() + 120
        while not driver.execute_script("return performance.getEntriesByName('easel:first-paint').length"):
            if time.time() > deadline:
                sys.exit("the page never painted the document")
            time.sleep(0.05)
        if PROFILE_FOLDER:
            profile = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
            (PROFILE_FOLDER / f"{count}-load.cpuprofile").write_text(json.dumps(profile))
            print(f"      {count}-load: " + "; ".join(f"{name} {ms:.0f} ms" for ms, name in heaviest_functions(profile)),
                  flush=True)
        first_paint = driver.execute_script("return performance.getEntriesByName('easel:first-paint')[0].startTime")
        phases = driver.execute_script("""
            const at = (name) => performance.getEntriesByName('easel:' + name)[0];
            const render = at('first-render');
            return { module: at('module-ready').startTime, socket: at('socket-open').startTime,
                     message: at('first-message').startTime, receiving: render.detail.receivingMs,
                     rendering: render.detail.renderingMs, moduleRendering: render.detail.moduleRenderingMs,
                     render: render.startTime,
                     moduleMB: render.detail.moduleBytes / 2 ** 20 };""")
        drawn = driver.execute_script("return window.easel.view.fragments.size")
        box = driver.execute_script(
            "const b = document.getElementById('canvas').getBoundingClientRect(); return [b.left, b.top, b.width];")
        # Select the 100 in the top-left block through the page's own taps,
        # before the bots start moving things about.
        for index in range(SELECTED):
            row, column = divmod(index, 10)
            x, y = box[0] + 20 + (column + BLOCK_COLUMN) * CELL, box[1] + 20 + row * CELL
            for kind in ("mousePressed", "mouseReleased"):
                mouse(driver, kind, x, y, button="left", clickCount=1)
        selected = driver.execute_script("return window.easel.session.selection.length")
        if TRACE_FOLDER:
            driver.save_screenshot(str(TRACE_FOLDER / f"selected-{count}.png"))

        fleet = subprocess.Popen(
            [str(EASEL), "bot", "--url", f"ws://127.0.0.1:{port}", "--doc", "bench", "--bots", str(bots),
             "--random", "--rate", "2", "--duration", f"{seconds * 6 + 60}s"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2)
        memory = renderer_memory_mb()
        parts = memory_parts(driver)
        if LOAD_ONLY:
            return {"entities": count, "drawn": drawn, "selected": selected, "first paint ms": first_paint,
                    "phases": phases, "memory MB": memory, "memory parts": parts, "cases": {}}

        cases = {}
        fitted = None
        for view in VIEWS:
            if view == "fit":
                fitted_at = time.monotonic()
                for kind in ("keyDown", "keyUp"):
                    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {
                        "type": kind, "key": "!", "code": "Digit1", "windowsVirtualKeyCode": 49, "modifiers": 8})
                # The cases time dragging, panning and bots on the fitted
                # view, not its first drawing: that is timed on its own.
                fitted = wait_for_whole_screen(driver, fitted_at)
                time.sleep(1)
            pan_x, pan_y, zoom = driver.execute_script("return window.easel.session.viewport()")
            # A selected emoji in the middle of the block, where it is on the
            # screen now: zoomed out, the first one's centre lies under the
            # selection's corner handle, and pressing there scaled the
            # selection instead of dragging it.
            middle_x, middle_y = 20 + (BLOCK_COLUMN + 4) * CELL, 20 + 4 * CELL
            grab_x, grab_y = box[0] + middle_x * zoom + pan_x, box[1] + middle_y * zoom + pan_y

            def drag(step):
                if step == 1:
                    mouse(driver, "mousePressed", grab_x, grab_y, button="left", clickCount=1)
                offset = (step % 200) * 2
                mouse(driver, "mouseMoved", grab_x + offset, grab_y + offset / 2, button="left", buttons=1)

            def pan(step):
                # Back and forth, so the view ends near where it began; every
                # fourth step zooms in or out a little about the middle.
                sign = 1 if (step // 100) % 2 == 0 else -1
                if step % 4 == 0:
                    mouse(driver, "mouseWheel", box[0] + box[2] / 2, box[1] + 300, deltaX=0,
                          deltaY=-10 * sign, modifiers=2)
                else:
                    mouse(driver, "mouseWheel", box[0] + box[2] / 2, box[1] + 300, deltaX=6 * sign, deltaY=3 * sign)

            for case in CASES:
                action = {"drag": drag, "pan": pan, "bots": lambda step: None}[case]
                cases[(view, case)] = frames_while(driver, tracer, seconds, action,
                                                   f"{count}-{view.replace(' ', '')}-{case}")
                if case == "drag":
                    mouse(driver, "mouseReleased", grab_x, grab_y, button="left", clickCount=1)
                    time.sleep(0.5)
        return {"entities": count, "drawn": drawn, "selected": selected, "first paint ms": first_paint,
                "fitted ms": fitted, "phases": phases, "memory MB": memory, "memory parts": parts, "cases": cases}
    finally:
        if fleet and fleet.poll() is None:
            fleet.send_signal(signal.SIGINT)
            try:
                fleet.wait(timeout=10)
            except subprocess.TimeoutExpired:
                fleet.kill()


def describe(case):
    frames = (f"{case['frames']:>4} frames: p50 {case['p50']:5.1f}, p95 {case['p95']:5.1f}, p99 {case['p99']:5.1f} ms; "
              f"over 16.7 ms {100 * case['over 16.7']:4.1f} %, over 33 ms {100 * case['over 33.3']:4.1f} %")
    if "tiles painted" in case:
        frames += (f"; tiles a frame: {case['tiles ms']:.1f} ms drawing {case['tiles painted']:.0f} entities "
                   f"({case.get('tiles specks', 0):.0f} as specks), "
                   f"{case['tiles mends']:.2f} canvases changed, {case['tiles made']:.2f} made")
    if case.get("moved as one layer"):
        frames += f"; {case['moved as one layer']:.0f} moved as one layer"
    if "main p50" not in case:
        return frames
    return (frames + "; "
            f"main thread a frame p50 {case['main p50']:5.1f}, p95 {case['main p95']:5.1f} ms (mean: "
            f"script {case['script a frame']:.1f}, style {case['style a frame']:.1f}, "
            f"layout {case['layout a frame']:.1f}, paint {case['paint a frame']:.1f}, "
            f"other {case['other a frame']:.1f}); raster {case['raster a frame']:.1f}, "
            f"compositor {case['compositor a frame']:.1f} ms a frame")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entities", default="1000,10000,50000")
    parser.add_argument("--bots", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", help="also write every run's figures here")
    parser.add_argument("--traces", help="keep each case's Chromium trace in this folder")
    parser.add_argument("--profiles", help="keep each case's JavaScript CPU profile in this folder and print its "
                        "heaviest functions")
    parser.add_argument("--load-only", action="store_true",
                        help="measure first paint and memory only, not the frames of the cases")
    parser.add_argument("--no-trace", action="store_true",
                        help="time the frames with Chromium's tracing off (no split of where the time goes)")
    arguments = parser.parse_args()
    global TRACE_FOLDER, PROFILE_FOLDER, LOAD_ONLY
    LOAD_ONLY = arguments.load_only
    if arguments.profiles:
        PROFILE_FOLDER = pathlib.Path(arguments.profiles)
        PROFILE_FOLDER.mkdir(parents=True, exist_ok=True)
    if arguments.traces:
        TRACE_FOLDER = pathlib.Path(arguments.traces)
        TRACE_FOLDER.mkdir(parents=True, exist_ok=True)
    for path in (EASEL, SITE / "canvas.html"):
        if not path.exists():
            sys.exit(f"missing {path}: run `swift build -c release --product easel` and `Web/build.sh`")
    everything = []
    with tempfile.TemporaryDirectory() as folder:
        for count in (int(n) for n in arguments.entities.split(",")):
            results = []
            for _ in range(arguments.runs):
                result = run(count, arguments.bots, arguments.seconds, pathlib.Path(folder), not arguments.no_trace)
                results.append(result)
                print(f"{count:>6} entities ({result['drawn']} drawn, {result['selected']} selected), "
                      f"{arguments.bots} bots: first full paint {result['first paint ms']:.0f} ms, "
                      f"renderer {result['memory MB']:.0f} MB", flush=True)
                phases = result["phases"]
                print(f"    first paint: module ready {phases['module']:.0f} ms, socket open {phases['socket']:.0f}, "
                      f"first message {phases['message']:.0f}, first render {phases['render']:.0f} "
                      f"(taking messages in {phases['receiving']:.0f} ms, rendering {phases['rendering']:.0f} "
                      f"of which the module's render {phases.get('moduleRendering') or 0:.0f}; "
                      f"module {phases['moduleMB']:.0f} MB)",
                      flush=True)
                parts = result["memory parts"]
                print(f"    memory: module {parts['module MB']:.0f} MB, JavaScript heap {parts['js heap MB']:.0f} MB, "
                      f"canvases {parts['canvases MB']:.0f} MB ({parts['tiles']} tiles), {parts['nodes']} nodes",
                      flush=True)
                if result.get("fitted ms") is not None:
                    print(f"    zoomed out to fit: every tile on screen drawn {result['fitted ms']:.0f} ms after",
                          flush=True)
                for (view, case), figures in result["cases"].items():
                    print(f"    {view:>6} {case:>5}: {describe(figures)}", flush=True)
            print(f"{count:>6} entities, median of {len(results)}: first full paint "
                  f"{statistics.median(r['first paint ms'] for r in results):.0f} ms, renderer "
                  f"{statistics.median(r['memory MB'] for r in results):.0f} MB", flush=True)
            fitted = [r["fitted ms"] for r in results if r.get("fitted ms") is not None]
            if fitted:
                print(f"    zoomed out to fit: every tile on screen drawn {statistics.median(fitted):.0f} ms after",
                      flush=True)
            for key in results[0]["cases"]:
                middle = {name: statistics.median(r["cases"][key][name] for r in results)
                          for name in results[0]["cases"][key]}
                print(f"    {key[0]:>6} {key[1]:>5}: {describe(middle)}", flush=True)
            everything.extend(
                {**r, "cases": [{"view": v, "case": c, **figures} for (v, c), figures in r["cases"].items()]}
                for r in results)
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(everything, indent=1))


if __name__ == "__main__":
    main()
