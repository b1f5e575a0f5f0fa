"""Collaboration you can see: another person's cursor, with their initials
in their colour, and what they selected, from presence."""

from conftest import ROOT
from pages import Canvas, translation, wait_until


def test_a_peers_cursor_and_selection_show_on_the_other_page(server, browsers):
    document = "web/presence"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ada.click("[data-emoji='🦊']")
    fox = wait_until(lambda: bob.entities(), what="the fox on both pages")[0][0]
    ada_name = ada.js("return document.getElementById('user-name').value")

    ada.hover(100, 150)
    peer = wait_until(lambda: [p for p in bob.js("return window.easel.session.peers()") if p["cursor"]],
                      what="ada's cursor in bob's presence")[0]
    assert peer["name"] == ada_name
    cursor = wait_until(lambda: bob.js(
        "const c = document.querySelector('#peers .peer-cursor');"
        "return c && [c.getAttribute('transform'), c.querySelector('text').textContent,"
        " c.querySelector('circle').getAttribute('fill')];"), what="ada's cursor drawn")
    x, y = translation(cursor[0])
    assert abs(x - 100) <= 1 and abs(y - 150) <= 1, "where ada's mouse is, to the pixel the mouse moves by"
    assert cursor[1] == peer["initials"] and cursor[2] == peer["color"]

    ada.tap(round(ada.width / 2), round(ada.height / 2))
    wait_until(lambda: ada.state["selection"] == [fox], what="ada selected the fox")
    stroke = wait_until(lambda: bob.js(
        "const r = document.querySelector('#peers .peer-selection'); return r && r.getAttribute('stroke');"),
        what="ada's selection drawn on bob's page")
    assert stroke == peer["color"]
    shots = ROOT / ".build-wasm" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    bob.driver.save_screenshot(str(shots / "a-peer-cursor-and-selection.png"))
