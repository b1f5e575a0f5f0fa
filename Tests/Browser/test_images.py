"""Images on the web canvas, in real Chromium against a real `easel serve`:
dropped, picked or pasted on one page, uploaded, and seen on another
page with their real pixels; a missing blob shows a placeholder until its
bytes come; an upload the server refuses undoes the place."""

import base64
import contextlib
import io
import random
import re
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from PIL import Image

from conftest import ROOT, Server
from pages import Canvas, wait_until

OUTSIDE_CLIENT = ROOT / "Tests" / "OutsideClients" / "easel_ws_client.py"

# Four quadrants, each its own colour: a picture that shows whether the
# image arrived whole and the right way round.
QUADRANTS = {"top left": (220, 40, 40), "top right": (40, 160, 60),
             "bottom left": (40, 70, 220), "bottom right": (240, 200, 30)}


def quadrant_png(width=240, height=160):
    picture = Image.new("RGB", (width, height))
    for name, colour in QUADRANTS.items():
        left = width // 2 if "right" in name else 0
        top = height // 2 if "bottom" in name else 0
        picture.paste(colour, (left, top, left + width // 2, top + height // 2))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


def noise_png(width=200, height=200):
    """A picture PNG cannot compress: its file is about 3 bytes a pixel."""
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3)).save(out, "PNG")
    return out.getvalue()


def drop(page, data, x, y, name="quadrants.png"):
    """Drops a file on the canvas as a file manager would."""
    page.js("""
        const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], arguments[3], { type: 'image/png' }));
        const canvas = document.getElementById('canvas');
        const box = canvas.getBoundingClientRect();
        canvas.dispatchEvent(new DragEvent('drop', {
            dataTransfer: transfer, clientX: box.left + arguments[1], clientY: box.top + arguments[2],
            bubbles: true, cancelable: true }));
    """, base64.b64encode(data).decode(), x, y, name)


def shown_image(page):
    """The box (x, y, width, height, in CSS pixels) of the one image on the
    page once its bytes are decoded and drawn, else None."""
    return page.js("""
        const image = document.querySelector('#entities image[data-blob][href]');
        if (!image) return null;
        const decoded = new Image();
        decoded.src = image.getAttribute('href');
        return decoded.decode().then(() => {
            const box = image.getBoundingClientRect();
            return [box.left, box.top, box.width, box.height];
        }, () => null);
    """)


def quadrant_colours(page, box, folder):
    """The colour at the middle of each quadrant of the box, from a screenshot."""
    shot = folder / "page.png"
    page.driver.save_screenshot(str(shot))
    picture = Image.open(shot).convert("RGB")
    ratio = picture.width / page.js("return window.innerWidth")
    x, y, width, height = box
    colours = {}
    for name in QUADRANTS:
        px = x + width * (0.75 if "right" in name else 0.25)
        py = y + height * (0.75 if "bottom" in name else 0.25)
        colours[name] = picture.getpixel((round(px * ratio), round(py * ratio)))
    return colours


def close_enough(seen, expected, tolerance=12):
    return all(abs(a - b) <= tolerance for a, b in zip(seen, expected))


def pending(page):
    return page.js("const s = window.easel.session; return s.flags.unacknowledged || s.awaitedBlobs.length > 0")


def test_an_image_dropped_on_one_page_appears_on_the_other_with_its_pixels(server, browsers, tmp_path):
    document = "web/photos"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    drop(ada, quadrant_png(), 300, 250)
    box = wait_until(lambda: shown_image(bob), what="the image on the other page")
    wait_until(lambda: not pending(ada), what="the place acknowledged")
    colours = quadrant_colours(bob, box, tmp_path)
    for name, expected in QUADRANTS.items():
        assert close_enough(colours[name], expected), f"{name}: {colours[name]} on the page, {expected} in the file"
    assert box[2] > 100 and box[3] > 60, box
    # Every byte went over HTTP with the same name the model holds.
    blob = bob.js("return document.querySelector('#entities image').dataset.blob")
    assert ada.js("return document.querySelector('#entities image').dataset.blob") == blob


def watch_uploads(page):
    """Records every text the toolbar's upload status shows from now on."""
    page.js("""
        window.uploadTexts = [];
        const status = document.getElementById('upload');
        new MutationObserver(() => window.uploadTexts.push(status.hidden ? '' : status.textContent))
            .observe(status, { childList: true, characterData: true, subtree: true, attributes: true });
    """)


def test_a_pasted_image_shows_its_upload_progress_and_appears_on_the_other_page(server, browsers, tmp_path):
    document = "web/pasted"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    watch_uploads(ada)
    ada.js("""
        const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
        document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    """, base64.b64encode(quadrant_png()).decode())
    box = wait_until(lambda: shown_image(bob), what="the pasted image on the other page")
    colours = quadrant_colours(bob, box, tmp_path)
    for name, expected in QUADRANTS.items():
        assert close_enough(colours[name], expected), f"{name}: {colours[name]} on the page, {expected} in the file"
    wait_until(lambda: not pending(ada), what="the place acknowledged")
    texts = ada.js("return window.uploadTexts")
    assert any(re.fullmatch(r"Uploading pasted\.png \d+%", text) for text in texts), texts
    assert texts[-1] == "" and ada.js("return document.getElementById('upload').hidden"), "the status goes when done"


@contextlib.contextmanager
def one_upload_server(folder, idle_seconds):
    """A server that takes one upload at a time and gives up on a stalled
    one after `idle_seconds`."""
    server = Server(folder, arguments=("--max-uploads", "1", "--blob-idle-seconds", str(idle_seconds)))
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def stalled_upload(server, folder, document):
    """An upload that sends half its body and stalls, holding the server's
    one place for uploads until the server gives up on it; returns once
    the server answers other uploads 503."""
    stalled = None
    try:
        blocker = folder / "blocker.png"
        blocker.write_bytes(noise_png())
        stalled = subprocess.Popen(
            ["python3", str(OUTSIDE_CLIENT), str(server.port), "stall-put", f"/blobs/{'00' * 32}?doc={document}",
             str(blocker)], stdout=subprocess.PIPE, text=True)
        probe = urllib.request.Request(f"{server.http}/blobs/{'11' * 32}?doc={document}", data=b"x", method="PUT")
        wait_until(lambda: status_of(probe) == 503, what="the server busy with the stalled upload")
        yield
    finally:
        if stalled:
            stalled.kill()
            stalled.wait()


def test_an_upload_the_busy_server_turns_away_is_tried_again_until_it_is_stored(tmp_path, browsers):
    # The page's upload gets 503 and must come back after a backoff.
    document = "web/busy"
    with one_upload_server(tmp_path, idle_seconds=2) as server:
        ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
        ada.js("""
            window.putStatuses = [];
            const open = XMLHttpRequest.prototype.open;
            XMLHttpRequest.prototype.open = function (method, url, ...rest) {
                if (method === 'PUT') this.addEventListener('loadend', () => window.putStatuses.push(this.status));
                return open.call(this, method, url, ...rest);
            };
        """)
        # Stalled once the pages are open: opening two browsers can take
        # longer than the server waits on a stalled upload.
        with stalled_upload(server, tmp_path, document):
            drop(ada, quadrant_png(), 300, 250)
            wait_until(lambda: shown_image(bob), seconds=30, what="the image once the server had room")
        puts = ada.js("return window.putStatuses")
        assert puts[0] == 503 and puts[-1] == 201, puts
        assert ada.js("return document.getElementById('problem').textContent") == ""


def test_a_page_reloaded_mid_upload_uploads_the_kept_bytes_again_and_the_image_arrives(tmp_path, browsers):
    # The page is reloaded while its upload waits to be tried again.
    document = "web/reloaded-upload"
    with one_upload_server(tmp_path, idle_seconds=4) as server:
        ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
        with stalled_upload(server, tmp_path, document):
            drop(ada, quadrant_png(), 300, 250)
            wait_until(lambda: shown_image(ada), what="the image shown at once on its own page")
            time.sleep(0.5)  # the session is saved at most 200 ms after an edit
            reloaded = Canvas(ada.driver, server, document)
            assert reloaded.js("return window.easel.session.awaitedBlobs.length") == 1, "the held place came back"
            wait_until(lambda: shown_image(bob), seconds=30, what="the image on the other page after the reload")
            wait_until(lambda: not pending(reloaded), what="the reloaded page's place acknowledged")


def status_of(request):
    try:
        return urllib.request.urlopen(request, timeout=10).status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_picked_image_on_a_secured_server_is_fetched_with_the_token_never_in_a_url(secured_server, browsers):
    document = "web/secret-photos"
    edit = secured_server.token("ada", document, "edit")
    view = secured_server.token("bob", document, "view")
    ada = Canvas(browsers(), secured_server, document, f"#token={edit}")
    bob = Canvas(browsers(), secured_server, document, f"#token={view}")
    png = quadrant_png(120, 80)
    path = secured_server.database.parent / "picked.png"
    path.write_bytes(png)
    ada.js("document.getElementById('image-file').hidden = false")
    ada.driver.find_element("css selector", "#image-file").send_keys(str(path))
    wait_until(lambda: shown_image(bob), what="the image on the viewer's page")
    for page, token in ((ada, edit), (bob, view)):
        urls = page.js("return performance.getEntriesByType('resource').map((entry) => entry.name)")
        assert any("/blobs/" in url for url in urls) or page is ada, urls
        assert not any(token in url for url in urls), "a token in a URL"


def test_a_missing_blob_shows_a_placeholder_that_retries_until_the_bytes_come(server, browsers):
    document = "web/late-bytes"
    png = quadrant_png(100, 60)
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    # A client that claims its upload finished without uploading: the place
    # goes out, the bytes are not on the server.
    blob = ada.js("""
        const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
        return crypto.subtle.digest('SHA-256', bytes).then((digest) => {
            const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
            window.easel.session.placeImage(hex, 200, 200, 100, 60);
            window.easel.session.blobStored(hex);
            return hex;
        });
    """, base64.b64encode(png).decode())
    wait_until(lambda: bob.js("return document.querySelector(`#entities image[data-blob='${arguments[0]}']`) !== null",
                              blob), what="the image's place on the other page")
    assert bob.js("return document.querySelector('#entities g.image rect[stroke-dasharray]') !== null"), \
        "the dashed outline shows where the image goes"
    assert not bob.js("return document.querySelector('#entities image').hasAttribute('href')")
    request = urllib.request.Request(f"{server.http}/blobs/{blob}?doc={document}", data=png, method="PUT")
    assert urllib.request.urlopen(request, timeout=10).status == 201
    wait_until(lambda: shown_image(bob), seconds=20, what="the image once its bytes came")


def test_an_upload_the_server_refuses_undoes_the_place_with_the_servers_reason(tmp_path, browsers):
    server = Server(tmp_path, arguments=("--max-blob-bytes", "1000"))
    try:
        document = "web/too-big"
        ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
        drop(ada, noise_png(), 300, 250)
        wait_until(lambda: "413" in ada.js("return document.getElementById('problem').textContent"),
                   what="the refusal shown")
        wait_until(lambda: ada.js("return document.querySelectorAll('#entities image').length") == 0
                   and ada.js("return window.easel.session.connectionState") == "connected",
                   what="the place undone")
        bob.tap(600, 500)  # anything: a round trip through the server
        assert bob.js("return document.querySelectorAll('#entities image').length") == 0
    finally:
        server.stop()


def stripes_png():
    """400 × 400: red, then green, then blue columns. Centred at the
    document's origin, which the standard view puts at the canvas's corner,
    the green column shows from 0 to 100 and the blue from 100 to 200."""
    picture = Image.new("RGB", (400, 400), (220, 40, 40))
    picture.paste((40, 170, 60), (200, 0, 300, 400))
    picture.paste((40, 70, 220), (300, 0, 400, 400))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


def canvas_pixel(page, folder, x, y):
    shot = folder / "background.png"
    page.driver.save_screenshot(str(shot))
    picture = Image.open(shot).convert("RGB")
    ratio = picture.width / page.js("return window.innerWidth")
    return picture.getpixel((round((page.left + x) * ratio), round((page.top + y) * ratio)))


def test_a_background_image_and_colour_set_on_one_page_show_on_the_other_and_a_blur_eraser_blurs_its_pixels(
        server, browsers, tmp_path):
    from selenium.webdriver.support.select import Select

    document = "web/background"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ada.js("const input = document.getElementById('background-color');"
           "input.value = '#f0e6c8'; input.dispatchEvent(new Event('change'));")
    path = tmp_path / "stripes.png"
    path.write_bytes(stripes_png())
    ada.click("#page-menu-button")  # the background is in the page's menu
    Select(ada.driver.find_element("id", "background-fit")).select_by_value("stretch")
    ada.js("document.getElementById('background-file').hidden = false")
    ada.driver.find_element("css selector", "#background-file").send_keys(str(path))
    wait_until(lambda: bob.js("return document.querySelector('#background image[href]') !== null"),
               what="the background image on the other page")
    wait_until(lambda: not pending(ada), what="the background acknowledged")
    bob.js("return document.querySelector('#background image').decode?.()")
    wait_until(lambda: close_enough(canvas_pixel(bob, tmp_path, 50, 100), (40, 170, 60)), what="the green column")
    assert close_enough(canvas_pixel(bob, tmp_path, 150, 100), (40, 70, 220)), "the blue column"
    assert close_enough(canvas_pixel(bob, tmp_path, 600, 400), (240, 230, 200)), "the background colour beyond"
    sharp = canvas_pixel(bob, tmp_path, 100, 100)

    # A blur eraser across the edge between the columns, on the first page.
    ada.choose("eraser", "blur")
    # From the right: the press lands clear of the options panel at the left,
    # and the canvas holds the pointer from then on.
    ada.mouse([(140 - 4 * step, 100) for step in range(21)])
    wait_until(lambda: bob.js("return document.querySelector(\"#viewport use[href='#background-image']\") !== null"),
               what="the blur eraser over the background on the other page")
    def mixed():
        red, green, blue = canvas_pixel(bob, tmp_path, 100, 100)
        return green > 90 and blue > 110 and (red, green, blue)
    blurred = wait_until(mixed, what="green and blue mixed at the edge")
    print(f"the edge between the columns: {sharp} sharp, {blurred} under the blur eraser")
