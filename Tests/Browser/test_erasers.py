"""The pixel eraser in pixels: examples/bots/drawing.svg as Chromium draws
it, against the same picture with the erasers' masks taken off. What lay
beneath the eraser is cleared; the apple placed after it is untouched."""

import re

from PIL import Image, ImageChops

from conftest import ROOT
from pictures import differing_pixels

GOLDEN = ROOT / "examples" / "bots" / "drawing.svg"


def drawn(browser, svg, folder, name):
    """The SVG as Chromium draws it; with its frame (x, y, width, height)."""
    path = folder / f"{name}.svg"
    path.write_text(svg)
    browser.get(path.as_uri())
    frame = [float(n) for n in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    picture = folder / f"{name}.png"
    browser.save_screenshot(str(picture))
    return Image.open(picture).convert("RGB").crop((0, 0, round(frame[2]), round(frame[3]))), frame


def pixels(picture):
    """The picture's RGB pixels as triples."""
    data = picture.tobytes()
    return [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]


def box(frame, x0, y0, x1, y1):
    """A document-unit box as pixel bounds of the drawn frame."""
    return (round(x0 - frame[0]), round(y0 - frame[1]), round(x1 - frame[0]), round(y1 - frame[1]))


def test_the_pixel_eraser_clears_what_lies_beneath_it_and_not_what_was_placed_after(browsers, tmp_path):
    browser = browsers()
    svg = GOLDEN.read_text()
    erased, frame = drawn(browser, svg, tmp_path, "erased")
    whole, _ = drawn(browser, re.sub(r' mask="url\(#(below|holes)-[^"]+\)"', "", svg), tmp_path, "unmasked")

    # Where the eraser passed over the brush strokes (from 490 130 to 60
    # 200, 14 wide), the masked picture lost ink the unmasked one has.
    path = box(frame, 150, 140, 330, 200)
    cleared = differing_pixels(erased.crop(path), whole.crop(path))
    assert cleared > 150, f"only {cleared} pixels cleared along the eraser's path"
    print(f"{cleared} pixels cleared along the eraser's path")
    ink = lambda picture: sum(1 for p in pixels(picture.crop(path)) if sum(p) < 600)
    assert ink(erased) < ink(whole), "clearing leaves less ink, never more"

    # The apple was placed after the eraser: the same pixels either way.
    apple = box(frame, 478, 88, 522, 132)
    assert ImageChops.difference(erased.crop(apple), whole.crop(apple)).getbbox() is None
    reds = sum(1 for r, g, b in pixels(erased.crop(apple)) if r > 150 and g < 110)
    assert reds > 200, f"the apple is drawn ({reds} red pixels)"
