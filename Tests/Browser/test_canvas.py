"""The web canvas in real Chromium against a real `easel serve`: two pages
and a bot co-edit one document with every kind of gesture, end with the
server's state, and show what `easel render` draws of it."""

import json
import math
import subprocess

from selenium.webdriver.common.keys import Keys

from conftest import easel_binary
from pages import Canvas, translation, wait_until
from pictures import SHOTS, canvas_area, differing_pixels, inked_pixels, rendered

# A page may differ from the render in at most this fraction of the pixels
# the render inks (pictures.CHANNEL_TOLERANCE says what differing means):
# anti-aliased edges at a fractional offset differ, a missing or misplaced
# entity differs far more (the test checks that it would fail without the
# balloon).
MOST_DIFFERING = 0.08


def run_bot(server, document, script, folder):
    path = folder / "bot.easel"
    path.write_text(script)
    report = folder / "report.json"
    result = subprocess.run(
        [str(easel_binary()), "bot", "--url", server.ws, "--doc", document, "--script", str(path),
         "--report", str(report)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(report.read_text())


def severe_console_entries(page):
    return [entry for entry in page.driver.get_log("browser") if entry["level"] == "SEVERE"]


def test_two_pages_and_a_bot_co_edit_and_end_with_the_servers_state(server, browsers, tmp_path):
    document = "web/together"
    first, second = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    cx, cy = round(first.width / 2), round(first.height / 2)

    # Place on both pages; a drag on the unselected fox moves it alone.
    first.place_emoji("🦊")
    fox = wait_until(lambda: second.entities(), what="the fox on both pages")[0][0]
    fox_at = translation(first.transform_of(fox))
    first.drag(cx, cy, -250, 0)
    second.place_shape(3)
    star = wait_until(lambda: [e[0] for e in first.entities() if e[0] != fox], what="the star on both pages")[0]
    star_at = translation(second.transform_of(star))

    # Select, drag, pinch with two touch points and rotate the star on the
    # first page; the second page sees each of them.
    first.tap(cx, cy)
    wait_until(lambda: first.state["selection"] == [star], what="the star selected")
    first.drag(cx, cy, 0, 60)
    y = cy + 60
    first.two_fingers([(cx - 40, y), (cx + 40, y)], [(cx - 60, y), (cx + 60, y)])
    turn = math.pi / 6
    first.two_fingers([(cx - 60, y), (cx + 60, y)],
                      [(cx - 60 * math.cos(turn), y - 60 * math.sin(turn)),
                       (cx + 60 * math.cos(turn), y + 60 * math.sin(turn))])
    wait_until(lambda: "rotate(30)" in second.transform_of(star), what="the star turned on the second page")
    transform = second.transform_of(star)
    assert translation(transform) == (star_at[0], star_at[1] + 60) and "scale(1.5)" in transform, transform
    wait_until(lambda: translation(second.transform_of(fox)) == (fox_at[0] - 250, fox_at[1]),
               what="the fox where the first page dragged it")
    first.tap(cx + 300, cy - 150)

    # Draw and type on the second page.
    second.choose("draw")
    second.mouse([(cx + 150, cy - 160), (cx + 200, cy - 120), (cx + 260, cy - 140), (cx + 320, cy - 90)])
    second.choose("select")
    wait_until(lambda: any(e[1] == "stroke" for e in first.entities()), what="the stroke on the first page")
    second.place_text("Hello", cx, cy)
    text = wait_until(lambda: [e[0] for e in first.entities() if e[1] == "text"], what="the text")[0]
    second.tap(cx, cy)
    wait_until(lambda: second.state["selection"] == [text], what="the text selected")
    second.double_click(cx, cy)
    editor = second.driver.find_element("id", "text-editor")
    wait_until(lambda: editor.is_displayed(), what="the text editor open")
    editor.send_keys(Keys.END, ", world", Keys.ENTER)
    wait_until(lambda: "Hello, world" in [e[3] for e in first.entities()], what="the new text on the first page")
    second.tap(cx + 300, cy - 150)

    # Delete the fox on the first page, and undo it.
    first.tap(cx - 250, cy)
    wait_until(lambda: first.state["selection"] == [fox], what="the fox selected")
    first.click("#delete")
    wait_until(lambda: fox not in [e[0] for e in second.entities()], what="the fox gone from the second page")
    first.click("#undo")
    wait_until(lambda: fox in [e[0] for e in second.entities()], what="the fox back on the second page")
    first.tap(cx + 300, cy - 150)

    report = run_bot(server, document, "\n".join([
        'place emoji "🎈" at 200 120 size 40',
        'tap 200 120',
        'drag 200 120 by 30 0',
    ]) + "\n", tmp_path)
    assert report["passed"], report
    server_hash = report["serverStateHash"].split()[0]
    for page in (first, second):
        # The module's state first; the page draws it on the next frame.
        wait_until(lambda: page.state["hash"] == server_hash and not page.state["pending"]
                   and page.state["drawn"] == 5, what="the page at the server's state, drawn")
        assert page.state["selection"] == []
        assert severe_console_entries(page) == []

    # Each page shows what `easel render` draws of the server's state.
    SHOTS.mkdir(parents=True, exist_ok=True)
    first.driver.save_screenshot(str(SHOTS / "two-pages-and-a-bot.png"))
    reference, frame = rendered(server, document, browsers(), tmp_path, "render-of-the-server")
    assert frame[2] <= first.width and frame[3] <= first.height, frame
    ink = inked_pixels(reference)
    for number, page in enumerate((first, second), start=1):
        page.click("#zoom-level")  # the zoom menu
        page.click("#reset-zoom")
        page.js("document.getElementById('peers').style.display = 'none'")
        differing = differing_pixels(canvas_area(page, frame, f"page-{number}"), reference)
        print(f"page {number}: {differing} of the {ink} pixels the render inks differ ({differing / ink:.1%})")
        assert differing <= MOST_DIFFERING * ink

    first.js("document.querySelector(\"#entities > g.emoji:last-child\").style.display = 'none'")
    without_balloon = differing_pixels(canvas_area(first, frame, "page-1-without-the-balloon"), reference)
    print(f"without the balloon: {without_balloon} differ ({without_balloon / ink:.1%})")
    assert without_balloon > MOST_DIFFERING * ink


def test_the_page_loads_the_module_without_names_and_the_named_one_when_asked(server, browsers):
    """`easel.wasm` has no name section (a fifth of the gzipped module); a
    page opened with `?debug` loads `easel.debug.wasm`, whose stack traces
    name functions. Both run the page."""
    def loaded(page):
        return [name.split("/")[-1] for name in page.js(
            "return performance.getEntriesByType('resource').map((entry) => entry.name)") if name.endswith(".wasm")]
    plain = Canvas(browsers(), server, "web/module-plain")
    assert loaded(plain) == ["easel.wasm"]
    named = Canvas(browsers(), server, "web/module-named", "?debug")
    assert loaded(named) == ["easel.debug.wasm"]
