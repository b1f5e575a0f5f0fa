"""Collaboration you can see: another person's cursor, with their initials
in their colour, and what they selected, from presence."""

from conftest import ROOT
from pages import Canvas, translation, wait_until


def test_a_peers_cursor_and_selection_show_on_the_other_page(server, browsers):
    document = "web/presence"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ada.place_emoji("🦊")
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


def test_a_peers_drag_and_stroke_in_flight_show_on_the_other_page_before_they_commit(server, browsers):
    document = "web/previews"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ada.place_emoji("🦊")
    fox = wait_until(lambda: bob.entities(), what="the fox on both pages")[0][0]
    placed = translation(bob.transform_of(fox))
    committed = bob.state["hash"]
    cx, cy = round(ada.width / 2), round(ada.height / 2)

    # Ada's pointer stays down: the drag is in flight, nothing committed.
    ada.press(cx, cy, [(cx + 40, cy), (cx + 80, cy + 30)])
    wait_until(lambda: translation(bob.transform_of(fox)) == (placed[0] + 80, placed[1] + 30),
               what="the fox previewed where ada drags it")
    assert bob.state["hash"] == committed
    ada.release()
    wait_until(lambda: bob.state["hash"] != committed, what="the drag committed")
    # Drawn on the page's next frame.
    wait_until(lambda: translation(bob.transform_of(fox)) == (placed[0] + 80, placed[1] + 30),
               what="the fox drawn where ada left it")

    ada.choose("draw")
    ada.press(cx - 200, cy - 100, [(cx - 150, cy - 60), (cx - 100, cy - 90)])
    wait_until(lambda: bob.js("return document.querySelectorAll('#peer-strokes > g').length") == 1,
               what="ada's stroke in progress on bob's page")
    ada.release()
    wait_until(lambda: any(e[1] == "stroke" for e in bob.entities()), what="the stroke committed")
    wait_until(lambda: bob.js("return document.querySelectorAll('#peer-strokes > g').length") == 0,
               what="the preview gone once the stroke is drawn")


def test_a_peers_committed_drag_never_flickers_back_to_where_it_began(server, browsers):
    # Presence ("the drag is over") is relayed at once, the drag's ops only
    # after their commit: without the settling preview, bob's page would
    # draw the fox back where it began for the frames between.
    document = "web/settling"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ada.place_emoji("🦊")
    fox = wait_until(lambda: bob.entities(), what="the fox on both pages")[0][0]
    placed = translation(bob.transform_of(fox))
    cx, cy = round(ada.width / 2), round(ada.height / 2)
    for drag in range(3):
        ada.press(cx, cy, [(cx + 20, cy), (cx + 60, cy + 10)])
        moved = (placed[0] + 60, placed[1] + 10)
        wait_until(lambda: translation(bob.transform_of(fox)) == moved, what="the drag previewed on bob's page")
        bob.js("""
            const id = arguments[0]; const seen = window.seenTransforms = [];
            window.watching = true;
            const look = () => {
              const group = document.querySelector(`#entities > g[data-id='${id}']`);
              seen.push(group && group.getAttribute('transform'));
              if (window.watching) requestAnimationFrame(look);
            };
            requestAnimationFrame(look);""", fox)
        committed = bob.state["hash"]
        ada.release()
        wait_until(lambda: bob.state["hash"] != committed, what="the drag committed")
        bob.js("return new Promise((done) => setTimeout(done, 300))")
        seen = bob.js("window.watching = false; return window.seenTransforms")
        assert len(seen) > 3, "frames were sampled"
        assert all(translation(t) == moved for t in seen), \
            f"drag {drag}: every frame shows the fox where ada left it, never where it began: {set(seen)}"
        placed = moved
        cx, cy = cx + 60, cy + 10


def test_the_state_key_is_marked_when_a_peers_state_at_the_same_position_matches(server, browsers):
    document = "web/agreement"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ada.place_emoji("🎈")
    bob.place_shape(2)
    def settled():
        # Both at once: a page may match its peer's earlier state (one op in)
        # before the second op reaches it, so each page alone proves little.
        marks = [page.js("return document.getElementById('state-key').dataset.agreement") for page in (ada, bob)]
        keys = [page.js("return document.getElementById('state-key').textContent") for page in (ada, bob)]
        return marks == ["same", "same"] and keys[0] == keys[1] and len(keys[0]) > 0

    wait_until(settled, what="both keys marked the same as the peer's, and equal")
    assert "The same state as" in bob.js("return document.getElementById('state-key').title")
