"""What the browser tests do to a canvas page and read from it."""

import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys


def wait_until(condition, seconds=15, what="the condition"):
    deadline = time.time() + seconds
    value = None
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} never held (last: {value!r})")


class Canvas:
    """One open canvas page."""

    def __init__(self, driver, server, document, fragment=""):
        self.driver = driver
        driver.get(f"{server.http}/d/{document}{fragment}")
        wait_until(lambda: self.js("return window.easel && window.easel.session.connectionState") == "connected",
                   what="connected")
        box = self.js("const b = document.getElementById('canvas').getBoundingClientRect();"
                      "return [b.left, b.top, b.width, b.height];")
        self.left, self.top, self.width, self.height = box

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    # What the page holds.

    @property
    def state(self):
        return self.js(
            "const s = window.easel.session;"
            "return {hash: s.stateHash, pending: s.flags.unacknowledged, selection: s.selection,"
            " drawn: document.querySelectorAll('#entities > g').length};")

    def entities(self):
        """ID → {kind, transform, text} of every drawn entity, bottom first."""
        return self.js(
            "return [...document.querySelectorAll('#entities > g')].map(g => "
            "[g.dataset.id, g.getAttribute('class').split(' ')[0], g.getAttribute('transform'), g.textContent]);")

    def transform_of(self, entity):
        return self.js("return document.querySelector(`#entities > g[data-id='${arguments[0]}']`)"
                       ".getAttribute('transform')", entity)

    def viewport(self):
        return self.js("return window.easel.session.viewport()")

    # Input, in canvas coordinates (CSS pixels from the canvas's corner).

    def click(self, selector):
        self.driver.find_element("css selector", selector).click()

    def choose(self, tool, option=None):
        """Picks a tool on the tool bar and, for some, an option: a pen, an
        eraser (pixels, objects, blur) or a shape (0–4)."""
        self.click(f"[data-tool='{tool}']")
        if option is not None:
            attribute = {"draw": "data-pen", "eraser": "data-eraser", "shapes": "data-shape"}[tool]
            self.click(f"[{attribute}='{option}']")

    def select_nothing(self):
        """Escape: the Select tool, nothing selected."""
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        wait_until(lambda: self.state["selection"] == [], what="nothing selected")

    # What is placed becomes the selection; these helpers, which set a scene
    # up, then select nothing (unless asked), as the tests expect.

    def place_emoji(self, emoji, keep_selected=False):
        """An emoji from the picker's quick picks, placed at the middle of the
        view (or stepped off an item already there)."""
        if self.js("return document.getElementById('emoji-picker').hidden"):
            self.click("#emoji-more")
        self.click(f"[data-emoji='{emoji}']")
        if not keep_selected:
            wait_until(lambda: self.state["selection"], what="the emoji placed and selected")
            self.select_nothing()

    def place_shape(self, kind, keep_selected=False):
        """A tap with the shape tool at the middle of the view: the shape lands
        there at its default size, and the tool goes back to Select."""
        self.choose("shapes", kind)
        self.tap(round(self.width / 2), round(self.height / 2))
        if not keep_selected:
            wait_until(lambda: self.state["selection"], what="the shape placed and selected")
            self.select_nothing()

    def place_text(self, text, x=None, y=None, keep_selected=False):
        """The Text tool's tap (the middle of the view unless given), then the
        text typed and Enter."""
        self.choose("text")
        self.tap(round(self.width / 2) if x is None else x, round(self.height / 2) if y is None else y)
        editor = self.driver.find_element("id", "text-editor")
        wait_until(lambda: editor.is_displayed(), what="the text editor open")
        editor.send_keys(text, "\n")
        if not keep_selected:
            wait_until(lambda: self.state["selection"], what="the text placed and selected")
            self.select_nothing()

    def mouse(self, path):
        """Presses at the first point, moves through the others, releases."""
        actions = ActionBuilder(self.driver)
        pointer = actions.pointer_action
        for index, (x, y) in enumerate(path):
            pointer.move_to_location(round(self.left + x), round(self.top + y))
            if index == 0:
                pointer.pointer_down()
        pointer.pointer_up()
        actions.perform()

    def double_click(self, x, y):
        """Two clicks the browser counts as a double click however slowly they
        arrive: the click count is given, not left to WebDriver's timing, which
        a busy machine stretches past the double-click interval."""
        at = {"x": self.left + x, "y": self.top + y, "button": "left"}
        self.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": at["x"], "y": at["y"]})
        for count in (1, 2):
            for kind in ("mousePressed", "mouseReleased"):
                self.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "clickCount": count, **at})

    def press(self, x, y, path):
        """Presses at (x, y) and moves through `path`, leaving the button down."""
        actions = ActionBuilder(self.driver)
        pointer = actions.pointer_action
        pointer.move_to_location(round(self.left + x), round(self.top + y))
        pointer.pointer_down()
        for px, py in path:
            pointer.move_to_location(round(self.left + px), round(self.top + py))
        actions.perform()

    def release(self):
        actions = ActionBuilder(self.driver)
        actions.pointer_action.pointer_up()
        actions.perform()

    def hover(self, x, y):
        """The mouse moves to the point without pressing."""
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(round(self.left + x), round(self.top + y))
        actions.perform()

    def tap(self, x, y):
        self.mouse([(x, y)])

    def drag(self, x, y, dx, dy):
        self.mouse([(x, y), (x + dx / 2, y + dy / 2), (x + dx, y + dy)])

    def touch(self, kind, points):
        self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
            "type": kind,
            "touchPoints": [{"x": self.left + x, "y": self.top + y, "id": index} for index, (x, y) in enumerate(points)],
        })

    def two_fingers(self, start, end, steps=6):
        """Two touch points moving from `start` to `end` (pairs of points)."""
        self.touch("touchStart", start)
        for step in range(1, steps + 1):
            t = step / steps
            self.touch("touchMove", [(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
                                     for a, b in zip(start, end)])
        self.touch("touchEnd", [])


def translation(transform):
    """(x, y) of a group's leading translate(), to the hundredth the renderer writes."""
    x, y = transform.split("translate(")[1].split(")")[0].split()
    return round(float(x), 2), round(float(y), 2)
