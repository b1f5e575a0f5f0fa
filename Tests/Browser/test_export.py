"""Export in a real page: the whole canvas as PNG matches, pixel for pixel
within the tolerance the other comparisons use, what `easel render` draws
of the same document (an image and a text in a served font included); 2×
is twice the size; without the background the corners are clear; the
selection alone makes a smaller picture; the SVG opens in rsvg-convert."""

import base64
import io
import subprocess

from PIL import Image

from pages import Canvas, wait_until
from pictures import SHOTS, differing_pixels, inked_pixels, rendered

# As the page-against-render comparisons: anti-aliasing moves edges a little.
MOST_DIFFERING = 0.08
from test_images import quadrant_png


def exported(page, **choice):
    data = page.driver.execute_async_script("""
        const [choice, done] = arguments;
        window.easel.exportNow(choice).then(async (blob) => {
          const bytes = new Uint8Array(await blob.arrayBuffer());
          let binary = ''; for (const byte of bytes) binary += String.fromCharCode(byte);
          done(btoa(binary));
        }, (error) => done('failed: ' + error.message));""", choice)
    assert not data.startswith("failed"), data
    return base64.b64decode(data)


def test_the_exported_png_is_what_the_renderer_draws_and_the_svg_opens_elsewhere(server, browsers, tmp_path):
    document = "web/export"
    page = Canvas(browsers(), server, document)
    page.choose("shapes", 1)
    page.click("[data-fill='solid']")
    page.tap(300, 200)
    page.place_emoji("🦊")
    page.place_text("Exported", 520, 330)
    page.choose("text")
    page.click("[data-font='DejaVu Serif']")
    page.tap(420, 120)
    editor = page.driver.find_element("id", "text-editor")
    wait_until(lambda: editor.is_displayed(), what="the editor")
    editor.send_keys("Serif", "\n")
    path = tmp_path / "quadrants.png"
    path.write_bytes(quadrant_png())
    page.js("document.getElementById('image-file').hidden = false")
    page.driver.find_element("css selector", "#image-file").send_keys(str(path))
    wait_until(lambda: len(page.entities()) == 5 and not page.state["pending"], what="five entities saved")
    page.js("return document.fonts.ready.then(() => true)")

    png = Image.open(io.BytesIO(exported(page, format="png", scale=1, selection=False, background=True))).convert("RGB")
    SHOTS.mkdir(parents=True, exist_ok=True)
    png.save(SHOTS / "export-1x.png")
    reference, frame = rendered(server, document, browsers(), tmp_path, "export-render", embed_images=True)
    # The frame's size rounded by JavaScript and by Python may differ by a pixel.
    assert abs(png.size[0] - reference.size[0]) <= 1 and abs(png.size[1] - reference.size[1]) <= 1
    common = (0, 0, min(png.size[0], reference.size[0]), min(png.size[1], reference.size[1]))
    png, reference = png.crop(common), reference.crop(common)
    ink = inked_pixels(reference)
    differing = differing_pixels(png, reference)
    print(f"export against render: {differing} of {ink} inked pixels differ")
    assert ink > 5000 and differing <= MOST_DIFFERING * ink

    double = Image.open(io.BytesIO(exported(page, format="png", scale=2, selection=False, background=True)))
    whole = Image.open(SHOTS / "export-1x.png").size
    assert abs(double.size[0] - whole[0] * 2) <= 1 and abs(double.size[1] - whole[1] * 2) <= 1, (double.size, whole)
    clear = Image.open(io.BytesIO(exported(page, format="png", scale=1, selection=False, background=False))).convert("RGBA")
    assert clear.getpixel((1, 1))[3] == 0 and clear.getpixel((clear.width - 2, clear.height - 2))[3] == 0
    page.select_nothing()
    page.tap(300, 200)
    wait_until(lambda: len(page.state["selection"]) == 1, what="the ellipse selected")
    part = Image.open(io.BytesIO(exported(page, format="png", scale=1, selection=True, background=True)))
    assert part.size[0] < whole[0] and part.size[1] < whole[1], (part.size, whole)

    svg = exported(page, format="svg", scale=1, selection=False, background=True)
    assert b"blobs/" not in svg and b"data:image/" in svg and b"@font-face" in svg, "images and fonts inside"
    (tmp_path / "export.svg").write_bytes(svg)
    result = subprocess.run(["rsvg-convert", "-o", str(tmp_path / "from-svg.png"), str(tmp_path / "export.svg")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    converted = Image.open(tmp_path / "from-svg.png").size
    assert abs(converted[0] - whole[0]) <= 1 and abs(converted[1] - whole[1]) <= 1

    # The menu opens the export dialog.
    page.click("#page-menu-button")
    page.click("#export-open")
    wait_until(lambda: page.js("return document.getElementById('export-dialog').open"), what="the export dialog")
    page.driver.save_screenshot(str(SHOTS / "export-dialog-1280.png"))
