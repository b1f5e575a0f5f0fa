"""Erasures belong to what they erased, in real pages: a pixel erasure cuts
the rectangle it was drawn over and goes where the rectangle goes; an older
star dragged under the old ink afterwards shows whole, on the page as in
`easel render`; one undo takes the hole away on both pages."""

from PIL import Image

from pages import Canvas, wait_until
from pictures import SHOTS, canvas_area, differing_pixels, inked_pixels, rendered

STAR = 30  # half the box the 48-unit star is judged in


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.driver.save_screenshot(str(path))
    return Image.open(path).convert("RGB")


def crop(picture, page, x, y, half):
    left, top = round(page.left + x), round(page.top + y)
    return picture.crop((left - half, top - half, left + half, top + half))


def dark(picture, page, x, y):
    """Whether the canvas pixel at (x, y) is inked (the rectangle's outline)."""
    r, g, b = picture.getpixel((round(page.left + x), round(page.top + y)))
    return r + g + b < 450


def holes(page):
    return page.js("return document.querySelectorAll('#entities [mask^=\"url(#holes-\"]').length")


def test_an_erasure_belongs_to_what_it_erased_on_every_page_and_in_the_render(server, browsers, tmp_path):
    document = "web/erasures"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    cx, cy = round(ada.width / 2), round(ada.height / 2)
    for page in (ada, bob):
        page.js("document.getElementById('peers').style.display = 'none'")

    # A star, moved aside, then a rectangle at the centre.
    ada.place_emoji("⭐️")
    star = wait_until(lambda: [e[0] for e in bob.entities()], what="the star on both pages")[0]
    ada.drag(cx, cy, 300, 0)
    ada.tap(40, 40)  # nothing there: clears the selection
    ada.place_shape(0)
    wait_until(lambda: len(bob.entities()) == 2, what="the rectangle on both pages")
    rectangle = [e[0] for e in bob.entities() if e[0] != star][0]
    ada.tap(40, 40)
    wait_until(lambda: ada.state["selection"] == [], what="nothing selected")
    star_alone = crop(shot(ada, "erasure-star-before"), ada, cx + 300, cy, STAR)

    # Ada erases across the rectangle's middle: both its sides are cut.
    ada.choose("eraser", "pixels")
    ada.mouse([(cx - 120, cy), (cx - 60, cy), (cx, cy), (cx + 60, cy), (cx + 120, cy)])
    for page in (ada, bob):
        wait_until(lambda: holes(page) == 1, what="the rectangle's hole on each page")
    cut = shot(ada, "erasure-drawn")
    assert not dark(cut, ada, cx - 60, cy) and dark(cut, ada, cx - 60, cy + 30), "the left side is cut at the ink"

    # Bob drags the older star under the old ink: it shows whole.
    bob.drag(cx + 300, cy, -300, 0)
    for page in (ada, bob):
        wait_until(lambda: page.state["hash"] == ada.state["hash"] and not page.state["pending"], what="the same state")
    star_under = crop(shot(ada, "erasure-star-under-old-ink"), ada, cx, cy, STAR)
    differing = differing_pixels(star_under, star_alone)
    print(f"the star under the old ink: {differing} of {inked_pixels(star_alone)} inked pixels differ")
    assert differing <= 0.02 * inked_pixels(star_alone), "the star moved under the old erasure is whole"

    # Bob drags the rectangle down: its hole goes with it.
    bob.drag(cx, cy - 35, 0, 150)
    for page in (ada, bob):
        wait_until(lambda: page.state["hash"] == ada.state["hash"] and not page.state["pending"], what="the same state")
        moved = shot(page, f"erasure-moved-{'ada' if page is ada else 'bob'}")
        assert not dark(moved, page, cx - 60, cy + 150), "the hole moved with the rectangle"
        assert dark(moved, page, cx - 60, cy + 180), "the rest of the side is drawn"

    # The page draws what `easel render` draws of the server's state.
    reference, frame = rendered(server, document, browsers(), tmp_path, "erasure-render")
    ink = inked_pixels(reference)
    # The frame's corner may fall between pixels: a one-pixel shift of
    # two-pixel lines is not a difference in what is drawn.
    differing = min(
        differing_pixels(canvas_area(ada, [frame[0] + dx, frame[1] + dy, *frame[2:]], "erasure-page"), reference)
        for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    print(f"page against render: {differing} of {ink} inked pixels differ")
    assert differing <= 0.08 * ink

    # One undo of Ada's takes the erasure back: the rectangle is whole on both pages.
    ada.choose("select")
    ada.click("#undo")
    for page in (ada, bob):
        wait_until(lambda: holes(page) == 0, what="no hole left on each page")
        wait_until(lambda: dark(shot(page, "erasure-undone"), page, cx - 60, cy + 150), what="the side whole again")
