"""Zoom and pan as people expect them, and leaving safely: the wheel pans,
Ctrl + wheel zooms in proportion and the level shows, the zoom menu zooms
in, out, to 100 %, to fit and to the selection, Alt + wheel scales the
selection as one undo step; the page says saving or saved, and leaving with
edits the server has not acknowledged asks first."""

from pages import Canvas, translation, wait_until

ALT, CTRL = 1, 2  # CDP's modifier bits


def wheel(page, x, y, dy, dx=0, modifiers=0):
    page.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {
        "type": "mouseWheel", "x": page.left + x, "y": page.top + y, "deltaX": dx, "deltaY": dy,
        "modifiers": modifiers})


def transform(page, entity):
    """The entity's drawn transform, or '' while it is being drawn anew."""
    return next((e[2] or "" for e in page.entities() if e[0] == entity), "")


def viewport(page):
    return [round(value, 3) for value in page.viewport()]


def test_the_wheel_pans_ctrl_wheel_zooms_and_the_zoom_menu_does_what_it_says(server, browsers):
    page = Canvas(browsers(), server, "web/view")
    cx, cy = round(page.width / 2), round(page.height / 2)
    page.place_emoji("⭐️")
    star = wait_until(lambda: [e[0] for e in page.entities()], what="the star")[0]
    assert viewport(page) == [0, 0, 1]
    assert page.driver.find_element("id", "zoom-level").text == "100%"

    wheel(page, cx, cy, 120)
    wait_until(lambda: viewport(page) == [0, -120, 1], what="a plain wheel pans")
    wheel(page, cx, cy, 0, dx=40)
    wait_until(lambda: viewport(page) == [-40, -120, 1], what="a sideways scroll pans sideways")

    # A trackpad pinch comes as Ctrl + wheel in small steps: each zooms a little.
    for _ in range(5):
        wheel(page, cx, cy, -10, modifiers=CTRL)
    wait_until(lambda: abs(page.viewport()[2] - 2 ** 0.5) < 0.001, what="five small pinch steps zoom by √2")
    wait_until(lambda: page.driver.find_element("id", "zoom-level").text == "141%", what="the level shown")

    page.click("#zoom-level")
    assert page.driver.find_element("id", "zoom-menu").is_displayed()
    items = [item.text.split("\n")[0] for item in page.driver.find_elements("css selector", "#zoom-menu button")]
    assert items == ["Zoom in", "Zoom out", "Zoom to 100 %", "Zoom to fit", "Zoom to selection", "Reset view"], items
    page.click("#zoom-menu [data-action='zoom-100']")
    wait_until(lambda: abs(page.viewport()[2] - 1) < 0.001, what="100 %")
    assert not page.driver.find_element("id", "zoom-menu").is_displayed(), "the menu closes"

    page.click("#zoom-level")
    page.click("#zoom-menu [data-action='fit-content']")
    def star_centred():
        box = page.js("const b = document.querySelector(`#entities > g[data-id='${arguments[0]}']`)"
                      ".getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]", star)
        return abs(box[0] - page.left - cx) < 2 and abs(box[1] - page.top - cy) < 2
    wait_until(star_centred, what="the star in the middle after zoom to fit")
    assert abs(page.viewport()[2] - 1) < 0.001, "zoom to fit stops at 100 %"

    # Keyboard: Ctrl + = zooms in a step, Shift + 0 is 100 % again.
    page.js("document.body.focus()")
    page.driver.find_element("css selector", "body").send_keys("\ue009=")  # Ctrl + =
    wait_until(lambda: abs(page.viewport()[2] - 1.25) < 0.001, what="Ctrl + = zooms in")


def test_alt_wheel_scales_the_selection_as_one_step_to_undo(server, browsers):
    page = Canvas(browsers(), server, "web/wheel-scale")
    cx, cy = round(page.width / 2), round(page.height / 2)
    page.place_emoji("🦊")
    fox = wait_until(lambda: [e[0] for e in page.entities()], what="the fox")[0]
    page.tap(cx, cy)
    wait_until(lambda: page.state["selection"] == [fox], what="the fox selected")
    for _ in range(5):
        wheel(page, cx, cy, -20, modifiers=ALT)
    wait_until(lambda: "scale(2)" in transform(page, fox), what="scaled by 2 as the wheel turns")
    assert viewport(page) == [0, 0, 1], "the view did not zoom"
    wait_until(lambda: not page.js("return window.easel.session.flags.gestureInFlight") and not page.state["pending"],
               what="the scaling ends when the wheel rests, and is saved")
    page.click("#undo")
    wait_until(lambda: transform(page, fox) and "scale(" not in transform(page, fox),
               what="one undo takes the whole scaling back")
    assert page.js("return window.easel.session.flags.canUndo") is True, "the placing is still there to undo"


def test_the_page_says_saved_or_not_and_leaving_with_unsaved_edits_asks_first(server, browsers):
    page = Canvas(browsers(), server, "web/leaving")
    status = lambda: page.driver.find_element("id", "save-state").text
    page.place_emoji("🎈")
    wait_until(lambda: status() == "Saved" and page.entities(), what="saved")
    page.js("window.easel.connection.setOnline(false)")
    page.place_emoji("🌲")
    wait_until(lambda: status() == "Not saved yet: kept in this browser", what="not saved, offline")

    # Leaving: the page cancels `beforeunload`, which makes every browser
    # ask first. (ChromeDriver answers such prompts itself, so the test
    # reads the page's answer, not the dialog.)
    asks = lambda: page.js("const e = new Event('beforeunload', { cancelable: true });"
                           "window.dispatchEvent(e); return e.defaultPrevented")
    assert asks() is True, "leaving with an unsaved edit asks first"

    page.js("window.easel.connection.setOnline(true)")
    wait_until(lambda: status() == "Saved", what="saved once back online")
    assert asks() is False, "leaving when all is saved asks nothing"
    page.js("location.href = '/'")
    wait_until(lambda: "/d/" not in page.driver.current_url, what="the page left, asking nothing")


def test_the_keyboard_selects_all_nudges_clears_and_lists_every_shortcut(server, browsers):
    from selenium.webdriver.common.keys import Keys
    from pictures import SHOTS
    page = Canvas(browsers(), server, "web/keyboard")
    page.place_emoji("⭐️")
    page.place_emoji("🦊")
    wait_until(lambda: len(page.entities()) == 2, what="two emoji")
    body = page.driver.find_element("css selector", "body")
    translations = lambda: sorted(translation(e[2]) for e in page.entities())
    before = translations()

    body.send_keys(Keys.CONTROL, "a")
    wait_until(lambda: len(page.state["selection"]) == 2, what="Ctrl A selects both")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.SHIFT, Keys.ARROW_DOWN)
    wait_until(lambda: translations() == [(x + 1, y + 10) for x, y in before], what="nudged 1 right and 10 down")
    page.click("#undo")
    wait_until(lambda: translations() == [(x + 1, y) for x, y in before], what="each nudge is its own step")
    body.send_keys(Keys.ESCAPE)
    wait_until(lambda: page.state["selection"] == [], what="Escape selects nothing")

    body.send_keys("?")
    dialog = page.driver.find_element("id", "shortcuts-dialog")
    wait_until(dialog.is_displayed, what="? shows the shortcuts")
    listed = page.js("return [...document.querySelectorAll('#shortcuts-list tr td:first-child')].map(c => c.textContent)")
    for label in ("Undo", "Redo", "Delete", "Duplicate", "Bring forward", "Zoom to fit", "Select all", "Move left"):
        assert label in listed, (label, listed)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.driver.save_screenshot(str(SHOTS / "shortcuts-1280.png"))
    body.send_keys(Keys.ESCAPE)
    wait_until(lambda: not dialog.is_displayed(), what="Escape closes it")
