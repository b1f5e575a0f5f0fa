"""The page's own colour picker in a real page: a swatch of the grid, the
sliders with opacity, hex and a recent colour each colour the selected
shape (the other page's SVG shows it; one undo each); press and hold the
colour button for a quick spectrum whose colour under the finger is chosen
when it lifts; and shapes get their fill (none, a tint, solid) from the page."""

from pages import Canvas, wait_until
from pictures import SHOTS


def paint(page, entity):
    return page.js("""const s = document.querySelector(`#entities > g[data-id='${arguments[0]}'] ellipse`);
        return s && [s.getAttribute('stroke'), s.getAttribute('stroke-opacity'), s.getAttribute('fill'),
                     s.getAttribute('fill-opacity')];""", entity)


def test_swatches_sliders_hex_recent_and_a_held_press_colour_the_selection_and_shapes_get_fill(server, browsers):
    document = "web/colour"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ada.choose("shapes", 1)
    ada.click("[data-fill='semi']")
    ada.tap(400, 300)
    ellipse = wait_until(lambda: [e[0] for e in bob.entities()], what="the ellipse")[0]
    wait_until(lambda: paint(bob, ellipse) == ["#222222", None, "#222222", "0.25"], what="a tint of the colour")
    wait_until(lambda: ada.state["selection"] == [ellipse], what="selected once placed")

    ada.click("#color-button")
    wait_until(lambda: ada.js("return !document.getElementById('color-picker').hidden"), what="the picker")
    assert ada.js("return document.querySelectorAll('#color-grid .swatch').length") == 72
    SHOTS.mkdir(parents=True, exist_ok=True)
    ada.driver.save_screenshot(str(SHOTS / "colour-picker-1280.png"))
    # A swatch of the grid.
    ada.click("#color-grid .swatch[data-colour='#b30000']")
    wait_until(lambda: paint(bob, ellipse)[0] == "#b30000", what="the swatch's colour on the other page")
    # Opacity by its slider: one change, one step.
    ada.js("const s = document.getElementById('color-opacity'); s.value = '50'; s.dispatchEvent(new Event('change'));")
    wait_until(lambda: paint(bob, ellipse)[:2] == ["#b30000", "0.5"], what="half opaque")
    # Hex.
    ada.js("const h = document.getElementById('color-hex'); h.value = '#2b7cff'; h.dispatchEvent(new Event('change'));")
    wait_until(lambda: paint(bob, ellipse)[:2] == ["#2b7cff", None], what="the hex colour")
    ada.js("const h = document.getElementById('color-hex'); h.value = 'not a colour'; h.dispatchEvent(new Event('change'));")
    assert ada.js("return document.getElementById('color-hex').getAttribute('aria-invalid')") == "true"
    # A recent colour.
    assert ada.js("return [...document.querySelectorAll('#color-recent .swatch')].map(b => b.dataset.colour)")[:3] == [
        "#2b7cff", "#b3000080", "#b30000"]
    ada.click("#color-recent .swatch[data-colour='#b30000']")
    wait_until(lambda: paint(bob, ellipse)[0] == "#b30000", what="the recent colour")
    ada.click("#undo")
    wait_until(lambda: paint(bob, ellipse)[0] == "#2b7cff", what="one undo a colour")

    # Press and hold: the quick spectrum; lifting over its middle row's left end picks red.
    ada.tap(1000, 500)  # closes the picker, selects nothing
    ada.tap(400, 300)
    wait_until(lambda: ada.state["selection"] == [ellipse], what="selected again")
    # The options panel shows again on the frame after the selection does.
    button = wait_until(lambda: ada.js(
        "const b = document.getElementById('color-button').getBoundingClientRect();"
        "return b.width > 0 && [b.left + b.width / 2, b.top + b.height / 2];"), what="the colour button shown")
    cdp = lambda kind, x, y: ada.driver.execute_cdp_cmd(  # noqa: E731
        "Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
    cdp("mousePressed", *button)
    wait_until(lambda: ada.js("return !document.getElementById('color-quick').hidden"), seconds=3,
               what="the quick spectrum after a held press")
    spot = ada.js("const b = document.getElementById('color-quick-spectrum').getBoundingClientRect();"
                  "return [b.left, b.top + b.height / 2];")
    cdp("mouseMoved", *spot)
    cdp("mouseReleased", *spot)
    wait_until(lambda: paint(bob, ellipse)[0] == "#ff0000", what="the colour under the finger, chosen")
    assert ada.js("return document.getElementById('color-quick').hidden")
