"""Every EmojiArt rule, by real pointer and touch events in Chromium, read
back from the page's selection, viewport and drawn document."""

import math

from selenium.webdriver.common.keys import Keys

from pages import Canvas, translation, wait_until


def test_the_emojiart_gesture_rules_hold_for_pointer_and_touch_input(server, browsers):
    page = Canvas(browsers(), server, "web/rules")
    cx, cy = round(page.width / 2), round(page.height / 2)

    # Drag on an unselected entity moves only that entity, and selects nothing.
    page.place_emoji("🦊")
    fox = wait_until(lambda: page.entities(), what="the fox drawn")[0][0]
    placed = translation(page.transform_of(fox))
    page.drag(cx, cy, -200, 0)
    wait_until(lambda: translation(page.transform_of(fox)) == (placed[0] - 200, placed[1]), what="the fox moved")
    assert page.state["selection"] == []

    page.place_shape(3)
    star = wait_until(lambda: [e[0] for e in page.entities() if e[0] != fox], what="the star drawn")[0]
    star_at = translation(page.transform_of(star))

    # Tap toggles an entity's selection; a tap on the background clears it.
    page.tap(cx - 200, cy)
    wait_until(lambda: page.state["selection"] == [fox], what="fox selected")
    page.tap(cx - 200, cy)
    wait_until(lambda: page.state["selection"] == [], what="fox unselected")
    page.tap(cx - 200, cy)
    page.tap(cx, cy)
    wait_until(lambda: sorted(page.state["selection"]) == sorted([fox, star]), what="both selected")

    # Drag on a selected entity moves the whole selection.
    page.drag(cx, cy, 0, 100)
    wait_until(lambda: translation(page.transform_of(fox)) == (placed[0] - 200, placed[1] + 100),
               what="the fox moved with the selection")
    assert translation(page.transform_of(star)) == (star_at[0], star_at[1] + 100)

    # Two fingers apart with a selection scale it; turning them rotates it.
    y = cy + 100
    page.two_fingers([(cx - 50, y), (cx + 50, y)], [(cx - 100, y), (cx + 100, y)])
    wait_until(lambda: "scale(2)" in page.transform_of(star), what="the star scaled")
    assert "scale(2)" in page.transform_of(fox)
    turn = math.pi / 4
    start = [(cx - 60, y), (cx + 60, y)]
    end = [(cx - 60 * math.cos(turn), y - 60 * math.sin(turn)), (cx + 60 * math.cos(turn), y + 60 * math.sin(turn))]
    page.two_fingers(start, end)
    wait_until(lambda: "rotate(45)" in page.transform_of(star), what="the star rotated")

    # Without a selection, a drag on the background pans and a pinch zooms;
    # the document does not change.
    page.tap(cx + 300, cy + 200)
    wait_until(lambda: page.state["selection"] == [], what="cleared by a background tap")
    before = page.state["hash"]
    page.drag(cx + 300, cy + 200, 50, 30)
    wait_until(lambda: page.viewport()[:2] == [50, 30], what="panned")
    page.two_fingers([(cx + 250, cy + 200), (cx + 350, cy + 200)], [(cx + 200, cy + 200), (cx + 400, cy + 200)])
    wait_until(lambda: abs(page.viewport()[2] - 2) < 0.01, what="zoomed")
    assert page.state["hash"] == before

    # Reset zoom brings the standard viewport back.
    page.click("#zoom-level")  # the zoom menu
    page.click("#reset-zoom")
    wait_until(lambda: page.viewport() == [0, 0, 1], what="reset")


def test_text_is_typed_in_place_and_reaches_the_other_page(server, browsers):
    document = "web/typing"
    writer, reader = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    writer.place_text("Hello")
    text = wait_until(lambda: reader.entities(), what="the text on both pages")[0]
    assert text[1] == "text" and text[3] == "Hello"
    cx, cy = round(writer.width / 2), round(writer.height / 2)
    writer.tap(cx, cy)
    wait_until(lambda: writer.state["selection"] == [text[0]], what="the text selected")
    writer.double_click(cx, cy)
    editor = writer.driver.find_element("id", "text-editor")
    wait_until(lambda: editor.is_displayed(), what="the editor open")
    assert editor.get_attribute("value") == "Hello"
    editor.send_keys(Keys.END, ", world", Keys.ENTER)
    wait_until(lambda: [e[3] for e in reader.entities()] == ["Hello, world"], what="the new text on the other page")
    assert not editor.is_displayed()
