"""A new user's tour of the page, at 1280 x 800 and at 390 x 844 with touch:
the picker refusing a bad name, placing, drawing, text typed in place,
handles, the menus, the colour picker, the shortcut list, select all, the
pixel eraser, and the phone's layout. It prints what it checks and leaves
screenshots named walk-*.png in .build-wasm/screenshots to look at.

    python3 Tests/Browser/tour.py      (after the README's test command built everything)

Not a test (pytest does not collect it): a script to look with."""
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from conftest import ROOT, Server, chromium  # noqa: E402
from pages import Canvas, wait_until  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

shots = ROOT / ".build-wasm" / "screenshots"
shots.mkdir(parents=True, exist_ok=True)
folder = pathlib.Path(tempfile.mkdtemp(prefix="easel-tour-"))
server = Server(folder)
drivers = []


def say(*a):
    print(*a, flush=True)


try:
    d = chromium(1280, 800)
    drivers.append(d)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    d.get(f"{server.http}/")
    time.sleep(1)
    d.save_screenshot(str(shots / "walk-picker-1280.png"))
    name = d.find_element("css selector", "#name")
    name.send_keys("my board")
    d.find_element("css selector", "#open button[type=submit]").click()
    time.sleep(1.5)
    say("picker problem:", d.execute_script("return document.getElementById('problem').textContent"))
    d.save_screenshot(str(shots / "walk-picker-bad-name-1280.png"))
    name.clear(); name.send_keys("walk/board")
    d.find_element("css selector", "#open button[type=submit]").click()
    wait_until(lambda: "/d/walk/board" in d.current_url)
    page = Canvas(d, server, "walk/board")
    cx, cy = page.width / 2, page.height / 2
    # emoji from the picker
    page.place_emoji("🦊")
    page.place_emoji("🎈")
    time.sleep(0.5)
    # a shape by the tool: rectangle
    page.choose("shapes", 0)
    page.drag(cx - 300, cy - 200, 160, 100)
    time.sleep(0.3)
    # draw with pen
    page.click("[data-tool='draw']")
    page.mouse([(cx + 150, cy - 150), (cx + 200, cy - 120), (cx + 260, cy - 160), (cx + 320, cy - 100)])
    time.sleep(0.3)
    # text: tool, click, type
    page.click("[data-tool='text']")
    page.tap(cx - 250, cy + 150)
    time.sleep(0.3)
    ActionChains(d).send_keys("Hello, Easel").perform()
    time.sleep(0.3)
    d.save_screenshot(str(shots / "walk-text-typing-1280.png"))
    ActionChains(d).send_keys(Keys.ENTER).perform()
    time.sleep(0.5)
    # select the fox to show handles
    page.click("[data-tool='select']")
    page.tap(cx, cy)
    time.sleep(0.5)
    d.save_screenshot(str(shots / "walk-handles-1280.png"))
    say("flags:", page.js("return window.easel.session.flags"))
    # zoom menu
    page.click("#zoom-level"); time.sleep(0.3)
    d.save_screenshot(str(shots / "walk-zoom-menu-1280.png"))
    ActionChains(d).send_keys(Keys.ESCAPE).perform(); time.sleep(0.3)
    say("zoom menu hidden after Escape:", page.js("return document.getElementById('zoom-menu').hidden"))
    # colour picker
    page.click("#color-button"); time.sleep(0.4)
    d.save_screenshot(str(shots / "walk-colour-1280.png"))
    page.tap(cx + 400, cy + 250); time.sleep(0.3)
    # shortcuts
    ActionChains(d).send_keys("?").perform(); time.sleep(0.4)
    d.save_screenshot(str(shots / "walk-shortcuts-1280.png"))
    ActionChains(d).send_keys(Keys.ESCAPE).perform(); time.sleep(0.3)
    # page menu + Escape closes
    page.click("#page-menu-button"); time.sleep(0.3)
    d.save_screenshot(str(shots / "walk-page-menu-1280.png"))
    ActionChains(d).send_keys(Keys.ESCAPE).perform(); time.sleep(0.3)
    say("page menu hidden after Escape:", page.js("return document.getElementById('page-menu').hidden"))
    # select all, nudge, duplicate
    ActionChains(d).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform(); time.sleep(0.3)
    d.save_screenshot(str(shots / "walk-select-all-1280.png"))
    ActionChains(d).send_keys(Keys.ESCAPE).perform(); time.sleep(0.3)
    # eraser over the rectangle
    page.click("[data-tool='eraser']"); time.sleep(0.2)
    page.mouse([(cx - 320, cy - 150), (cx - 220, cy - 150), (cx - 120, cy - 150)])
    time.sleep(0.5)
    page.click("[data-tool='select']")
    d.save_screenshot(str(shots / "walk-erased-1280.png"))
    say("saving:", page.js("return document.getElementById('save-state').textContent"))
    say("overflow 1280:", page.js("return document.documentElement.scrollWidth"))
    # --- phone
    p = chromium(390, 844)
    drivers.append(p)
    p.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    p.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    phone = Canvas(p, server, "walk/board")
    time.sleep(1)
    p.save_screenshot(str(shots / "walk-phone-390.png"))
    say("overflow 390:", phone.js("return document.documentElement.scrollWidth"))
    small = phone.js("""return [...document.querySelectorAll('button, select, input, [role=menuitem]')]
      .filter(e => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0 && (b.width < 44 || b.height < 44); })
      .map(e => (e.id || e.className || e.textContent).toString().slice(0, 30) + ' ' + Math.round(e.getBoundingClientRect().width) + 'x' + Math.round(e.getBoundingClientRect().height));""")
    say("controls under 44 px on the phone:", small)
    phone.click("[data-tool='draw']"); time.sleep(0.4)
    p.save_screenshot(str(shots / "walk-phone-draw-390.png"))
    phone.click("#zoom-level"); time.sleep(0.4)
    p.save_screenshot(str(shots / "walk-phone-zoom-menu-390.png"))
    say("overflow 390 with the zoom menu open:", phone.js("return document.documentElement.scrollWidth"),
        phone.js("const b = document.getElementById('zoom-menu').getBoundingClientRect(); return [b.left, b.right]"))
    phone.click("#zoom-level"); time.sleep(0.3)
    phone.click("#color-button"); time.sleep(0.4)
    p.save_screenshot(str(shots / "walk-phone-colour-390.png"))
    say("bad errors:", [e for e in d.get_log("browser") + p.get_log("browser") if e["level"] == "SEVERE"])
finally:
    for driver in drivers:
        driver.quit()
    server.stop()
