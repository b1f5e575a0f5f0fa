"""Text as the drawing contest asks, in a real page: the Text tool places
text where clicked and it is typed in place, looking as it will look; then
size, font, style, alignment and colour change it, the SVG on the other
page shows each, and one undo takes each back. A double click on an
unselected text edits it, and Enter edits the selected one."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from pages import Canvas, wait_until
from pictures import SHOTS


def text_svg(page, entity):
    """The text element's attributes that show its look, and a frame's presence."""
    return page.js("""
        const g = document.querySelector(`#entities > g[data-id='${arguments[0]}']`);
        const t = g && g.querySelector('text');
        return t && {family: t.getAttribute('font-family'), size: t.getAttribute('font-size'),
                     anchor: t.getAttribute('text-anchor'), fill: t.getAttribute('fill'), stroke: t.getAttribute('stroke'),
                     framed: g.querySelector('rect') !== null, text: t.textContent};""", entity)


def test_text_placed_by_click_typed_in_place_then_each_change_shows_and_undoes(server, browsers):
    document = "web/text-tools"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    x, y = 300, 200
    ada.choose("text")
    ada.click("[data-font='DejaVu Serif']")
    ada.tap(x, y)
    editor = ada.driver.find_element("id", "text-editor")
    wait_until(lambda: editor.is_displayed(), what="the editor where the click was")
    look = ada.js("const s = getComputedStyle(document.getElementById('text-editor'));"
                  "const b = document.getElementById('text-editor').getBoundingClientRect();"
                  "const c = document.getElementById('canvas').getBoundingClientRect();"
                  "return [s.fontFamily, s.fontSize, b.left + b.width / 2 - c.left, b.top + b.height / 2 - c.top];")
    assert look[0].strip('"') == "DejaVu Serif" and look[1] == "32px", look
    assert abs(look[2] - x) <= 2 and abs(look[3] - y) <= 2, f"centred on the click: {look}"
    editor.send_keys("Ahoy")
    SHOTS.mkdir(parents=True, exist_ok=True)
    ada.driver.save_screenshot(str(SHOTS / "text-typing-1280.png"))
    editor.send_keys(Keys.ENTER)
    text = wait_until(lambda: [e[0] for e in bob.entities() if e[1] == "text"], what="the text on the other page")[0]
    assert wait_until(lambda: text_svg(bob, text)) == {
        "family": "DejaVu Serif", "size": "32", "anchor": "start", "fill": "#222222", "stroke": None, "framed": False,
        "text": "Ahoy"}
    wait_until(lambda: ada.state["selection"] == [text], what="the new text selected, the tool back to Select")
    assert ada.js("return document.querySelector('[data-tool=select]').getAttribute('aria-pressed')") == "true"

    # Each change to the selected text shows on the other page, and one undo takes it back.
    def change_and_undo(act, key, changed, what):
        before = text_svg(bob, text)[key]
        act()
        wait_until(lambda: text_svg(bob, text)[key] == changed, what=f"{what} on the other page")
        ada.click("#undo")
        wait_until(lambda: text_svg(bob, text)[key] == before, what=f"one undo takes the {what} back")

    change_and_undo(lambda: ada.click("[data-font='DejaVu Sans Mono']"), "family", "DejaVu Sans Mono", "font")
    change_and_undo(lambda: ada.click("[data-align='right']"), "anchor", "end", "alignment")
    change_and_undo(lambda: ada.click("[data-text-style='framed']"), "framed", True, "frame")
    change_and_undo(lambda: ada.click("[data-text-style='outlined']"), "stroke", "#222222", "outline")
    change_and_undo(lambda: ada.js("const s = document.getElementById('text-size'); s.value = '64';"
                                   "s.dispatchEvent(new Event('change'));"), "size", "64", "size")
    change_and_undo(lambda: ada.js("const c = document.getElementById('color'); c.value = '#c62828';"
                                   "c.dispatchEvent(new Event('change'));"), "fill", "#c62828", "colour")
    # The buttons follow the selected text's look.
    assert ada.js("return document.querySelector('[data-font=\"DejaVu Serif\"]').getAttribute('aria-pressed')") == "true"
    ada.driver.save_screenshot(str(SHOTS / "text-options-1280.png"))

    # Enter edits the selected text in place; a double click on an unselected one too.
    ActionChains(ada.driver).send_keys(Keys.ENTER).perform()
    wait_until(lambda: editor.is_displayed() and editor.get_property("value") == "Ahoy", what="Enter opens it")
    assert ada.js(f"return document.querySelector(`#entities > g[data-id='{text}']`).classList.contains('editing')")
    editor.send_keys(Keys.END, "!", Keys.ENTER)
    wait_until(lambda: text_svg(bob, text)["text"] == "Ahoy!", what="the edit on the other page")
    ada.select_nothing()
    box = ada.js(f"const b = document.querySelector(`#entities > g[data-id='{text}'] text`).getBoundingClientRect();"
                 "const c = document.getElementById('canvas').getBoundingClientRect();"
                 "return [b.left + b.width / 2 - c.left, b.top + b.height / 2 - c.top];")
    ada.double_click(*box)
    wait_until(lambda: editor.is_displayed() and editor.get_property("value") == "Ahoy!", what="a double click edits")
    editor.send_keys(Keys.ESCAPE)
    wait_until(lambda: not editor.is_displayed(), what="Escape leaves the editor, keeping the text")
    assert text_svg(bob, text)["text"] == "Ahoy!"


def test_what_is_placed_is_selected_and_steps_off_the_last_one(server, browsers):
    page = Canvas(browsers(), server, "web/placing")
    cx, cy = round(page.width / 2, 2), round(page.height / 2, 2)
    placed = []
    for emoji in ("⭐️", "🦊", "🌲"):
        page.place_emoji(emoji, keep_selected=True)
        new = wait_until(lambda: [e for e in page.entities() if e[0] not in [p[0] for p in placed]], what=emoji)[0]
        wait_until(lambda: page.state["selection"] == [new[0]], what=f"{emoji} selected alone")
        placed.append(new)
    from pages import translation
    spots = [translation(page.transform_of(entity[0])) for entity in placed]
    assert spots == [(cx, cy), (cx + 24, cy + 24), (cx + 48, cy + 48)], spots
