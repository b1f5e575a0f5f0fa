"""The selection's box and handles in a real page: each handle scales or
turns one entity and several, through the editor's pinch and rotation, the
other page sees the gesture live (the entity and the peer's box), and one
undo takes the whole drag back."""

import math
import re

from pages import Canvas, wait_until
from pictures import SHOTS


def scale_and_turn(transform):
    """(scale, degrees) of a group's transform attribute; (1, 0) when absent."""
    scale = re.search(r"scale\(([-\d.e]+)", transform or "")
    turn = re.search(r"rotate\(([-\d.e]+)", transform or "")
    return (float(scale.group(1)) if scale else 1.0, float(turn.group(1)) if turn else 0.0)


def handle(page, name):
    """The centre of a handle on the canvas, in canvas coordinates."""
    return page.js(
        "const b = document.querySelector(`#handles [data-handle='${arguments[0]}'] .knob`).getBoundingClientRect();"
        "const c = document.getElementById('canvas').getBoundingClientRect();"
        "return [b.left + b.width / 2 - c.left, b.top + b.height / 2 - c.top];", name)


def size_of(page, entity):
    return page.js("const b = document.querySelector(`#entities > g[data-id='${arguments[0]}']`)"
                   ".getBoundingClientRect(); return [b.width, b.height];", entity)


def place(page, emoji, known):
    """An emoji (or, given a number, a shape) at the middle of the view: its ID."""
    if isinstance(emoji, int):
        page.place_shape(emoji)
    else:
        page.place_emoji(emoji)
    return wait_until(lambda: [e[0] for e in page.entities() if e[0] not in known], what=f"{emoji} placed")[0]


def test_a_corner_handle_scales_and_the_other_page_sees_it_live_then_one_undo(server, browsers):
    document = "web/handles-scale"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    cx, cy = round(ada.width / 2), round(ada.height / 2)
    square = place(ada, 0, [])  # 120 × 80 at the centre
    ada.tap(cx, cy)
    wait_until(lambda: ada.state["selection"] == [square], what="the square selected")
    corner = wait_until(lambda: ada.js("return document.querySelectorAll('#handles .handle').length") == 9 and
                        handle(ada, "se"), what="eight handles and the turning one")
    assert [round(v) for v in corner] == [cx + 60, cy + 40]
    SHOTS.mkdir(parents=True, exist_ok=True)
    ada.driver.save_screenshot(str(SHOTS / "handles-1280.png"))

    # Out twice as far from the centre, the button still down.
    ada.press(corner[0], corner[1], [(cx + 90, cy + 60), (cx + 120, cy + 80)])
    wait_until(lambda: abs(scale_and_turn(bob.transform_of(square))[0] - 2) < 0.03, what="the other page shows the pinch live")
    wait_until(lambda: bob.js("return document.querySelector('#peers .peer-selection')?.getBoundingClientRect().width")
               >= 240, what="the peer's box follows the gesture")
    ada.release()
    for page in (ada, bob):
        wait_until(lambda: abs(scale_and_turn(page.transform_of(square))[0] - 2) < 0.03 and not page.state["pending"],
                   what="scaled twice, saved")
    wait_until(lambda: all(abs(a - b) <= 2 for a, b in zip(handle(ada, "se"), (cx + 120, cy + 80))), what="the handles follow")
    ada.click("#undo")
    for page in (ada, bob):
        wait_until(lambda: scale_and_turn(page.transform_of(square))[0] == 1, what="one undo takes it back")
    refused = [entry for entry in ada.driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert refused == [], "the page's own policy refuses nothing the page does"


def test_the_turning_handle_turns_and_shift_snaps_to_fifteen_degrees(server, browsers):
    document = "web/handles-turn"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    cx, cy = round(ada.width / 2), round(ada.height / 2)
    square = place(ada, 0, [])
    ada.tap(cx, cy)
    top = wait_until(lambda: ada.js("return !!document.querySelector('#handles [data-handle=rotate]')") and
                     handle(ada, "rotate"), what="the turning handle")
    assert [round(v) for v in top] == [cx, cy - 40 - 28]
    # From straight above the centre to straight right of it: a quarter turn.
    ada.press(top[0], top[1], [(cx + 60, cy - 60), (cx + 100, cy)])
    wait_until(lambda: abs(scale_and_turn(bob.transform_of(square))[1] - 90) < 0.5, what="turning live")
    ada.release()
    for page in (ada, bob):
        wait_until(lambda: abs(scale_and_turn(page.transform_of(square))[1] - 90) < 0.5, what="a quarter turn")

    # Shift held: a drag to 100° lands on 105° (a multiple of 15°).
    top = handle(ada, "rotate")
    aim = math.radians(100)  # the turning handle points along 90° (screen right) now
    ada.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Shift", "modifiers": 8})
    at = lambda x, y: {"x": ada.left + x, "y": ada.top + y, "button": "left", "modifiers": 8}  # noqa: E731
    ada.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mousePressed", **at(*top), "clickCount": 1})
    target = (cx + 100 * math.cos(aim - math.pi / 2), cy + 100 * math.sin(aim - math.pi / 2))
    ada.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", **at(*target)})
    ada.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseReleased", **at(*target), "clickCount": 1})
    ada.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Shift"})
    for page in (ada, bob):
        wait_until(lambda: abs(scale_and_turn(page.transform_of(square))[1] - 105) < 0.5, what="snapped to 105°")


def test_handles_scale_several_entities_each_in_place_and_a_side_keeps_the_ratio(server, browsers):
    document = "web/handles-several"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    cx, cy = round(ada.width / 2), round(ada.height / 2)
    star = place(ada, "⭐️", [])
    ada.drag(cx, cy, -100, 0)
    fox = place(ada, "🦊", [star])
    ada.tap(cx - 100, cy)
    ada.tap(cx, cy)
    wait_until(lambda: sorted(ada.state["selection"]) == sorted([star, fox]), what="both selected")
    # One upright box around both: from the star's left to the fox's right
    # (drawn on the frame after the selection changed).
    box_size = ("const b = document.querySelector('#handles .selection-box').getBoundingClientRect();"
                "return [b.width, b.height];")
    box = wait_until(lambda: (lambda b: b if 140 <= b[0] <= 150 and 40 <= b[1] <= 50 else None)(ada.js(box_size)),
                     what="one box around both")
    before = size_of(ada, fox)
    east = handle(ada, "e")
    # Sideways 50 % further from the centre of the box, with Shift held.
    ada.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Shift", "modifiers": 8})
    centre_x = east[0] - box[0] / 2
    ada.mouse([east, (east[0] + box[0] / 4, east[1] + 30), (centre_x + box[0] * 0.75, east[1] + 60)])
    ada.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Shift"})
    for page in (ada, bob):
        wait_until(lambda: all(abs(scale_and_turn(page.transform_of(e))[0] - 1.5) < 0.03 for e in (star, fox)),
                   what="each scaled by 1.5")
    after = size_of(ada, fox)
    assert abs(after[0] / after[1] - before[0] / before[1]) < 0.02, (before, after)
    ada.click("#undo")
    for page in (ada, bob):
        wait_until(lambda: all(scale_and_turn(page.transform_of(e))[0] == 1 for e in (star, fox)),
                   what="one undo for both")
