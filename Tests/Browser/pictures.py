"""A page's canvas against `easel render` of the server's state, both
rasterised by the same Chromium, compared pixel by pixel."""

import re
import subprocess

from PIL import Image, ImageChops

from conftest import ROOT, easel_binary

SHOTS = ROOT / ".build-wasm" / "screenshots"

# A pixel differs when one of its channels differs by more than this: the
# page's canvas may sit at a fractional offset, which shifts anti-aliased
# edges by part of a pixel, and that alone stays under it.
CHANNEL_TOLERANCE = 96


def rendered(server, document, browser, folder, name, embed_images=False):
    """`easel render` of the document on the server's database, as Chromium
    draws the SVG file; with the SVG's frame (x, y, width, height)."""
    svg = folder / f"{name}.svg"
    result = subprocess.run(
        [str(easel_binary()), "render", "--db", str(server.database), "--doc", document, "-o", str(svg),
         *(["--embed-images"] if embed_images else [])],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    frame = [float(n) for n in re.search(r'viewBox="([^"]+)"', svg.read_text()).group(1).split()]
    browser.get(svg.as_uri())
    picture = SHOTS / f"{name}.png"
    browser.save_screenshot(str(picture))
    width, height = round(frame[2]), round(frame[3])
    return Image.open(picture).convert("RGB").crop((0, 0, width, height)), frame


def canvas_area(page, frame, name):
    """The part of the page's canvas showing the frame, at the standard
    viewport (the page's own overlays, peers and selection, put away first)."""
    picture = SHOTS / f"{name}.png"
    page.driver.save_screenshot(str(picture))
    x, y = page.left + frame[0], page.top + frame[1]
    box = (round(x), round(y), round(x) + round(frame[2]), round(y) + round(frame[3]))
    area = Image.open(picture).convert("RGB").crop(box)
    area.save(SHOTS / f"{name}-area.png")
    return area


def differing_pixels(first, second):
    """How many pixels' colours differ by more than the tolerance."""
    assert first.size == second.size, (first.size, second.size)
    red, green, blue = ImageChops.difference(first, second).split()
    largest = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    return largest.point(lambda value: 255 if value > CHANNEL_TOLERANCE else 0).histogram()[255]


def inked_pixels(picture):
    """How many pixels differ from a white background: what there is to see."""
    return differing_pixels(picture, Image.new("RGB", picture.size, "white"))
