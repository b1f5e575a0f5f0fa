"""Drawing in the page: speed thins the ink, and the object eraser deletes
what it crosses on every page."""

from selenium.webdriver.common.actions.action_builder import ActionBuilder

from pages import Canvas, wait_until


def draw_line(page, y, step, step_milliseconds):
    """A straight line from x 100 to 500 at height y, the mouse moving
    `step` pixels every `step_milliseconds`."""
    actions = ActionBuilder(page.driver, duration=step_milliseconds)
    pointer = actions.pointer_action
    pointer.move_to_location(round(page.left + 100), round(page.top + y))
    pointer.pointer_down()
    for x in range(100 + step, 501, step):
        pointer.move_to_location(round(page.left + x), round(page.top + y))
    pointer.pointer_up()
    actions.perform()


def stroke_heights(page):
    """The height of each stroke's ink, bottom first: a horizontal line's
    width."""
    return page.js("return [...document.querySelectorAll('#entities > g.stroke path')]"
                   ".map(p => p.getBBox().height);")


def test_a_stroke_drawn_fast_is_thinner_than_the_same_line_drawn_slowly(server, browsers):
    page = Canvas(browsers(), server, "web/speed")
    page.choose("draw")
    draw_line(page, 150, 8, 40)   # 200 pixels a second
    wait_until(lambda: len(stroke_heights(page)) == 1, what="the slow stroke")
    draw_line(page, 300, 160, 20)  # 8,000 pixels a second
    heights = wait_until(lambda: (h := stroke_heights(page)) and len(h) == 2 and h, what="the fast stroke")
    slow, fast = heights
    print(f"slow line {slow:.2f} high, fast line {fast:.2f}")
    # Quiet, the fast line is about 2.0 high against 2.7 (26 % thinner);
    # on a CI machine busy with the rest of the run the browser moved the
    # pointer slower than asked and it came out 2.2 against 2.72 (19 %).
    # Without thinning the two would be the same height.
    assert fast < slow * 0.85, f"the fast line is {fast} high, the slow one {slow}"


def test_the_object_eraser_removes_what_it_crosses_on_every_page(server, browsers):
    document = "web/object-eraser"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    cx, cy = round(ada.width / 2), round(ada.height / 2)
    ada.place_emoji("🦊")
    fox = wait_until(lambda: [e[0] for e in bob.entities()], what="the fox on both pages")[0]
    ada.drag(cx, cy, -250, 0)
    ada.tap(cx + 300, cy - 150)
    ada.place_emoji("🌲")
    wait_until(lambda: len(bob.entities()) == 2, what="the tree on both pages")
    tree = [e[0] for e in bob.entities() if e[0] != fox][0]

    ada.choose("eraser", "objects")
    ada.mouse([(cx - 250, cy - 80), (cx - 250, cy), (cx - 250, cy + 80)])
    for page in (ada, bob):
        wait_until(lambda: [e[0] for e in page.entities()] == [tree], what="only the tree left on each page")
    # One undo brings the fox back everywhere.
    ada.click("#undo")
    for page in (ada, bob):
        wait_until(lambda: sorted(e[0] for e in page.entities()) == sorted([fox, tree]), what="the fox back")


def test_the_shape_tool_drags_out_a_shape_and_places_one_by_tap(server, browsers):
    page = Canvas(browsers(), server, "web/shape-tool")
    page.choose("shapes", 1)
    page.mouse([(300, 100), (360, 130), (400, 160)])
    # One shape at a time, as in tldraw and Excalidraw: then the Select tool.
    wait_until(lambda: page.js("return document.querySelector('[data-tool=select]').getAttribute('aria-pressed')")
               == "true", what="back to Select")
    page.choose("shapes", 1)
    page.tap(600, 300)
    ellipses = wait_until(lambda: (e := page.js(
        "return [...document.querySelectorAll('#entities ellipse')].map(e => [e.getAttribute('rx'), e.getAttribute('ry')]);"
    )) and len(e) == 2 and e, what="two ellipses")
    assert ellipses == [["50", "30"], ["60", "40"]], ellipses
