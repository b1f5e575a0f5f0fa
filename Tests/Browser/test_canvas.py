"""The web canvas in real Chromium against a real `easel serve`: pages and
bots co-edit one document and end with the server's state."""

import json
import pathlib
import subprocess
import time

from selenium.webdriver.common.action_chains import ActionChains

from conftest import ROOT, easel_binary


def open_canvas(driver, server, document):
    driver.get(f"{server.http}/d/{document}")
    wait_for(driver, "return window.easel && window.easel.session.connectionState", "connected")


def wait_for(driver, script, expected, seconds=15):
    deadline = time.time() + seconds
    value = None
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value == expected:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{script!r} stayed {value!r}, not {expected!r}")


def translation(transform):
    """(x, y) of a group's leading translate(), to the hundredth the renderer writes."""
    x, y = transform.split("translate(")[1].split(")")[0].split()
    return round(float(x), 2), round(float(y), 2)


def wait_until(condition, seconds=15):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("the condition never held")


def state(driver):
    return driver.execute_script(
        "const s = window.easel.session;"
        "return {hash: s.stateHash, pending: s.flags.unacknowledged,"
        " drawn: document.querySelectorAll('#entities > g').length, selection: s.selection};")


def settled(drivers, expected_hash, seconds=15):
    deadline = time.time() + seconds
    states = []
    while time.time() < deadline:
        states = [state(driver) for driver in drivers]
        if all(s["hash"] == expected_hash and not s["pending"] for s in states):
            return states
        time.sleep(0.1)
    raise AssertionError(f"pages did not reach the server's state {expected_hash}: {states}")


def severe_console_entries(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def run_bot(server, document, script, tmp_path):
    path = tmp_path / "bot.easel"
    path.write_text(script)
    report = tmp_path / "report.json"
    result = subprocess.run(
        [str(easel_binary()), "bot", "--url", server.ws, "--doc", document, "--script", str(path),
         "--report", str(report)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(report.read_text())


def test_two_pages_and_a_bot_co_edit_and_end_with_the_servers_state(server, browsers, tmp_path):
    document = "web/together"
    first, second = browsers(), browsers()
    open_canvas(first, server, document)
    open_canvas(second, server, document)

    first.find_element("css selector", "[data-emoji='🦊']").click()
    second.find_element("css selector", "[data-shape='3']").click()
    wait_for(first, "return document.querySelectorAll('#entities > g').length", 2)
    wait_for(second, "return document.querySelectorAll('#entities > g').length", 2)

    # A real pointer drag on the first page moves the entity on top (the
    # star, placed last on the second page) once it ends.
    star = "return document.querySelector('#entities > g.shape').getAttribute('transform')"
    before = translation(first.execute_script(star))
    canvas = first.find_element("id", "canvas")
    ActionChains(first).move_to_element(canvas).click_and_hold().move_by_offset(60, 0).move_by_offset(60, 20) \
        .release().perform()
    wait_until(lambda: translation(first.execute_script(star)) == (before[0] + 120, before[1] + 20))

    report = run_bot(server, document, "\n".join([
        'place emoji "🎈" at 200 200 size 40',
        'tap 200 200',
        'drag 200 200 by 30 0',
    ]) + "\n", tmp_path)
    assert report["passed"], report
    states = settled([first, second], report["serverStateHash"].split()[0])
    assert [s["drawn"] for s in states] == [3, 3]
    for driver in (first, second):
        assert severe_console_entries(driver) == []
    shots = ROOT / ".build-wasm" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    first.save_screenshot(str(shots / "two-pages-and-a-bot.png"))
