"""What a page does when its connection goes, and what a view token allows."""

import time
from types import SimpleNamespace

from latency import LatencyProxy
from pages import Canvas, wait_until


def test_edits_made_offline_arrive_when_the_page_comes_back(server, browsers):
    document = "web/offline"
    away, other = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    away.js("window.easel.connection.setOnline(false)")
    wait_until(lambda: away.js("return window.easel.session.connectionState") == "offline", what="offline")
    wait_until(lambda: away.js("return document.getElementById('connection').dataset.state") == "offline",
               what="offline shown (the page draws on the next frame)")
    away.place_emoji("🌲")
    away.place_shape(1)
    wait_until(lambda: away.state["drawn"] == 2 and away.state["pending"], what="drawn while offline")
    assert other.state["drawn"] == 0

    away.js("window.easel.connection.setOnline(true)")
    wait_until(lambda: other.state["drawn"] == 2, what="the other page received the edits")
    wait_until(lambda: not away.state["pending"] and away.state["hash"] == other.state["hash"], what="converged")


def test_a_view_token_sees_every_edit_and_cannot_push(secured_server, browsers):
    document = "web/viewing"
    editor = Canvas(browsers(), secured_server, document,
                    "#token=" + secured_server.token("ed", document, "edit"))
    viewer = Canvas(browsers(), secured_server, document,
                    "#token=" + secured_server.token("vic", document, "view"))
    assert "token" not in viewer.driver.current_url, "the token leaves the address bar"
    editor.place_emoji("🎈")
    wait_until(lambda: viewer.state["drawn"] == 1, what="the viewer sees the edit")

    viewer.place_emoji("🦊")
    # Refused (303): the viewer drops its own edit and comes back to the
    # server's state.
    wait_until(lambda: viewer.state["drawn"] == 1 and not viewer.state["pending"]
               and viewer.state["hash"] == editor.state["hash"], what="the viewer back to the server's state")
    assert editor.state["drawn"] == 1


def test_a_page_reloaded_with_unacknowledged_edits_shows_and_sends_them(server, browsers):
    document = "web/reload"
    page, other = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    page.js("window.easel.connection.setOnline(false)")
    wait_until(lambda: page.js("return window.easel.session.connectionState") == "offline", what="offline")
    page.place_emoji("🎈")
    page.place_shape(0)
    wait_until(lambda: page.js("return indexedDB.databases().then(all => all.length)") == 1, what="saved")
    time.sleep(0.5)  # the save runs at most 200 ms after the edit

    reloaded = Canvas(page.driver, server, document)
    assert reloaded.state["drawn"] == 2, "the edits are back before anything arrives"
    wait_until(lambda: other.state["drawn"] == 2, what="the other page received them")
    wait_until(lambda: not reloaded.state["pending"] and reloaded.state["hash"] == other.state["hash"],
               what="converged")


def test_delayed_pings_show_weak_and_prompt_ones_show_connected_again(server, browsers):
    proxy = LatencyProxy(server.port)
    try:
        page = Canvas(browsers(), SimpleNamespace(http=f"http://127.0.0.1:{proxy.port}"), "web/weak")
        indicator = "return document.getElementById('connection').dataset.state"
        assert page.js(indicator) == "connected"
        # Pings go every 5 s; one unanswered for 1 s makes the connection weak.
        proxy.delay = 1.5
        wait_until(lambda: page.js(indicator) == "weak", seconds=12, what="weak shown")
        assert page.js("return document.getElementById('connection').textContent") == "weak"
        proxy.delay = 0
        wait_until(lambda: page.js(indicator) == "connected", seconds=12, what="connected again")
    finally:
        proxy.close()


def test_a_page_without_a_token_asks_for_one_and_joins_with_it(secured_server, browsers):
    document = "web/asking"
    driver = browsers()
    driver.get(f"{secured_server.http}/d/{document}")
    form = driver.find_element("id", "token-form")
    wait_until(lambda: form.is_displayed(), what="the page asks for a token")
    assert "token" in driver.find_element("id", "token-reason").text.lower()
    assert driver.execute_script("return window.easel.session.connectionState") == "offline", "it stops retrying"

    driver.find_element("id", "token-input").send_keys(secured_server.token("ann", document, "edit"))
    driver.find_element("css selector", "#token-form button").click()
    wait_until(lambda: driver.execute_script(
        "return window.easel && window.easel.session.connectionState") == "connected", what="joined with the token")
    assert "token" not in driver.current_url, "the token leaves the address bar"
    driver.find_element("id", "emoji-more").click()
    driver.find_element("css selector", "[data-emoji='🦊']").click()
    wait_until(lambda: driver.execute_script(
        "return document.querySelectorAll('#entities > g').length === 1"
        " && !window.easel.session.flags.unacknowledged"), what="an edit acknowledged")
