"""One tool bar, exactly one active tool, and each tool's options and
nothing else; the letters pick tools, Escape goes back to Select; the Hand
pans over entities without moving them. On a phone (390 × 844, touch):
nothing scrolls sideways, the tools sit along the bottom, every control is
at least 44 px, the weight slider stands upright at the left edge, and two
fingers zoom with a drawing tool and never draw."""

from selenium.webdriver.common.keys import Keys

from conftest import chromium
from pages import Canvas, wait_until
from pictures import SHOTS


def pressed_tools(page):
    return page.js("return [...document.querySelectorAll('[data-tool][aria-pressed=true]')].map(b => b.dataset.tool)")


def shown_groups(page):
    return page.js("return document.getElementById('options').hidden ? [] : "
                   "[...document.querySelectorAll('#options [data-group]')].filter(g => !g.hidden).map(g => g.dataset.group)")


TOOLS = ["select", "hand", "draw", "eraser", "lasso", "shapes", "text"]
OPTIONS = {"select": [], "hand": [], "draw": ["pens", "color", "weight", "cap"], "eraser": ["erasers", "weight"],
           "lasso": [], "shapes": ["shapes", "color", "fill", "weight"],
           "text": ["fonts", "text-size", "text-style", "align", "color"]}


def test_exactly_one_tool_is_active_and_shows_its_own_options_and_letters_and_escape_pick_tools(server, browsers):
    page = Canvas(browsers(), server, "web/tools")
    assert pressed_tools(page) == ["select"], "the page opens on Select"
    for tool in TOOLS:
        page.click(f"[data-tool='{tool}']")
        assert pressed_tools(page) == [tool]
        assert shown_groups(page) == OPTIONS[tool], tool
    body = page.driver.find_element("css selector", "body")
    for letter, tool in zip("vhpelrt", TOOLS):
        body.send_keys(letter)
        wait_until(lambda: pressed_tools(page) == [tool], what=f"{letter} picks {tool}")
    body.send_keys(Keys.ESCAPE)
    wait_until(lambda: pressed_tools(page) == ["select"], what="Escape goes back to Select")

    # The eraser's kinds and the pens are one choice each.
    page.choose("eraser", "objects")
    assert page.js("return [...document.querySelectorAll('[data-eraser][aria-pressed=true]')].map(b => b.dataset.eraser)") \
        == ["objects"]
    page.choose("draw", "neon")
    assert page.js("return [...document.querySelectorAll('[data-pen][aria-pressed=true]')].map(b => b.dataset.pen)") \
        == ["neon"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.driver.save_screenshot(str(SHOTS / "tools-1280.png"))


def test_the_hand_pans_over_an_entity_without_moving_it_and_select_shows_the_selections_options(server, browsers):
    page = Canvas(browsers(), server, "web/hand")
    cx, cy = round(page.width / 2), round(page.height / 2)
    page.place_emoji("🦊")
    fox = wait_until(lambda: [e[0] for e in page.entities()], what="the fox")[0]
    before = page.transform_of(fox)
    page.choose("hand")
    page.drag(cx, cy, 120, 40)
    wait_until(lambda: page.viewport()[:2] == [120, 40], what="the view panned")
    assert page.transform_of(fox) == before and page.state["selection"] == [], "the fox stays where it is, unselected"
    page.choose("select")
    page.tap(cx + 120, cy + 40)
    wait_until(lambda: page.state["selection"] == [fox], what="the fox selected")
    wait_until(lambda: shown_groups(page) == ["color", "weight", "arrange"],
               what="the selection's options (fill is for shapes)")


def phone(server, document):
    driver = chromium(390, 844)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return driver, Canvas(driver, server, document)


SMALL_CONTROLS = """
const small = [];
for (const control of document.querySelectorAll('button, label.button, input, select, a')) {
  const box = control.getBoundingClientRect();
  if (box.width === 0 || box.height === 0 || control.closest('[hidden], dialog:not([open])')) continue;
  if (getComputedStyle(control).visibility === 'hidden') continue;
  if (box.width < 44 || box.height < 44) small.push(`${control.id || control.dataset.tool || control.textContent.trim()} ${Math.round(box.width)}×${Math.round(box.height)}`);
}
return small;"""


def test_on_a_phone_nothing_scrolls_sideways_the_tools_sit_at_the_bottom_and_every_control_is_44_px(server):
    driver, page = phone(server, "web/phone")
    try:
        for tool in TOOLS:
            page.click(f"[data-tool='{tool}']")
            assert page.js("return document.documentElement.scrollWidth") <= 390, f"sideways scroll with {tool}"
            assert page.js(SMALL_CONTROLS.replace("button, label.button, input, select, a",
                                                  "#topbar button, #tools button, #tools label.button, "
                                                  "#options button, #options input:not([type=range]), #corner button")) == [], tool
        page.choose("draw")
        tools = page.js("const b = document.getElementById('tools').getBoundingClientRect(); return [b.top, b.bottom, b.left, b.right]")
        assert tools[1] == 844 and tools[2] == 0 and tools[3] == 390, f"the tool bar along the bottom: {tools}"
        slider = page.js("const b = document.getElementById('weight').getBoundingClientRect(); return [b.left, b.width, b.height]")
        assert slider[0] < 48 and slider[2] > 2 * slider[1], f"the weight slider upright at the left edge: {slider}"
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / "phone-draw-390.png"))
        # The zoom sits at the right edge: its menu opens leftwards, on screen.
        page.click("#zoom-level")
        menu = wait_until(lambda: page.js("const m = document.getElementById('zoom-menu');"
                                          "const b = m.getBoundingClientRect(); return !m.hidden && [b.left, b.right]"),
                          what="the zoom menu open")
        assert 0 <= menu[0] and menu[1] <= 390, f"the zoom menu within the screen: {menu}"
        assert page.js("return document.documentElement.scrollWidth") <= 390, "sideways scroll with the zoom menu"
        driver.save_screenshot(str(SHOTS / "phone-zoom-menu-390.png"))
        page.click("#zoom-level")

        # Two fingers apart with the Draw tool: a zoom, and no line.
        cx, cy = 195, 400
        page.two_fingers([(cx - 40, cy), (cx + 40, cy)], [(cx - 100, cy), (cx + 100, cy)])
        wait_until(lambda: page.viewport()[2] > 1.5, what="two fingers zoom")
        assert page.entities() == [], "two fingers draw nothing"
        # One finger still draws.
        page.touch("touchStart", [(100, 300)])
        for step in range(1, 8):
            page.touch("touchMove", [(100 + 15 * step, 300 + 5 * step)])
        page.touch("touchEnd", [])
        wait_until(lambda: [e[1] for e in page.entities()] == ["stroke"], what="one finger draws")
        page.choose("select")
        page.tap(157, 321)
        driver.save_screenshot(str(SHOTS / "phone-select-390.png"))
    finally:
        driver.quit()
