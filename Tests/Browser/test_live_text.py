"""Two people typing into one text at once, each in their own browser: the
keystrokes become character ops as they are typed, both texts end whole
on both pages, and each page shows the other's caret in the text while
they type. An input method's composition goes in whole when it ends, even
when a peer typed meanwhile."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from pages import Canvas, wait_until
from pictures import SHOTS


def editor_value(page):
    return page.js("return document.getElementById('text-editor').value")


def peer_carets(page):
    """The replicas whose caret this page shows, and the bar's colour."""
    return page.js("return [...document.querySelectorAll('#peers .peer-caret')].map(g => "
                   "[g.dataset.replica, g.querySelector('.peer-caret-bar').getAttribute('stroke')])")


def caret_bar_and_glyph_x(page, replica, index):
    """The x of a peer's caret bar on the screen, the x where the editor
    draws the place before its character `index` (UTF-16; a hidden mirror of
    the editor finds it by layout), and the editor's font size."""
    return page.js("""
        const [replica, index] = arguments;
        const mark = [...document.querySelectorAll('#peers .peer-caret')].find(g => g.dataset.replica === String(replica));
        const bar = mark.querySelector('.peer-caret-bar').getBoundingClientRect();
        const editor = document.getElementById('text-editor');
        const box = editor.getBoundingClientRect(), style = getComputedStyle(editor);
        const mirror = document.createElement('div');
        for (const name of ['fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'letterSpacing', 'paddingLeft',
                            'paddingRight', 'paddingTop', 'borderLeftWidth', 'borderLeftStyle', 'borderRightWidth',
                            'borderRightStyle', 'textAlign', 'whiteSpace', 'lineHeight', 'boxSizing', 'width']) {
          mirror.style[name] = style[name];
        }
        Object.assign(mirror.style, { position: 'fixed', left: `${box.left}px`, top: `${box.top}px`, visibility: 'hidden' });
        const marker = document.createElement('span');
        marker.textContent = '\u200b';
        mirror.append(editor.value.slice(0, index), marker, editor.value.slice(index));
        document.body.append(mirror);
        const glyph = marker.getBoundingClientRect().left;
        mirror.remove();
        return [bar.left + bar.width / 2, glyph, parseFloat(style.fontSize)];
    """, replica, index)


def open_text_for_typing(page, text):
    """Selects the text and opens it for typing, the caret at its end."""
    page.js("window.easel.session.perform('clearSelection')")
    page.js("window.easel.session.perform('selectAll')")
    wait_until(lambda: page.state["selection"] == [text], what="the text selected")
    ActionChains(page.driver).send_keys(Keys.ENTER).perform()
    editor = page.driver.find_element("id", "text-editor")
    wait_until(lambda: editor.is_displayed(), what="the editor open on the text")
    editor.send_keys(Keys.END)
    return editor


def test_two_pages_typing_into_one_text_at_once_both_keep_every_keystroke_and_see_each_others_caret(server, browsers):
    document = "web/live-text"
    ann, bob = Canvas(browsers(1280, 800), server, document), Canvas(browsers(1280, 800), server, document)
    ann.place_text("Meeting notes", x=640, y=300)
    text = wait_until(lambda: [e[0] for e in bob.entities() if e[1] == "text"], what="the text on Bob's page")[0]
    ann_editor = open_text_for_typing(ann, text)
    bob_editor = open_text_for_typing(bob, text)
    ann_replica, bob_replica = ann.js("return window.easel.session.replica"), bob.js("return window.easel.session.replica")

    typed = {"ann": " from Ann", "bob": " by Bob!!"}
    seen_while_typing = {"ann": False, "bob": False}
    for index, (a, b) in enumerate(zip(typed["ann"], typed["bob"])):
        ann_editor.send_keys(a)
        bob_editor.send_keys(b)
        if index >= 3:
            seen_while_typing["ann"] |= any(r == bob_replica for r, _ in peer_carets(ann))
            seen_while_typing["bob"] |= any(r == ann_replica for r, _ in peer_carets(bob))
    wait_until(lambda: editor_value(ann) == editor_value(bob), what="both editors agree")
    merged = editor_value(ann)
    assert merged.startswith("Meeting notes") and typed["ann"] in merged and typed["bob"] in merged, merged
    assert len(merged) == len("Meeting notes") + len(typed["ann"]) + len(typed["bob"]), merged
    # Keystrokes went as they were typed, before anyone pressed Enter.
    wait_until(lambda: any(r == bob_replica for r, _ in peer_carets(ann)), what="Bob's caret on Ann's page")
    wait_until(lambda: any(r == ann_replica for r, _ in peer_carets(bob)), what="Ann's caret on Bob's page")
    assert seen_while_typing["ann"] or seen_while_typing["bob"], "a caret showed while typing"
    # Each page's peer caret settles after that peer's last key.
    def peer_head(page, replica):
        return page.js("const p = window.easel.session.peers().find(p => p.replica === arguments[0]);"
                       "return p && p.caret && p.caret.head", replica)
    for page, replica, run in ((ann, bob_replica, typed["bob"]), (bob, ann_replica, typed["ann"])):
        wait_until(lambda: peer_head(page, replica) == merged.index(run) + len(run), what="the peer's caret after its last key")
    # Where each page's peer caret is drawn: on the glyphs of the editor
    # this person types in (laid out by a mirror of it), not on the
    # drawing hidden under it.
    for page, replica, run in ((ann, bob_replica, typed["bob"]), (bob, ann_replica, typed["ann"])):
        bar, glyph, size = caret_bar_and_glyph_x(page, replica, merged.index(run) + len(run))
        assert abs(bar - glyph) < size * 0.3, f"the peer's caret at x {bar}, the character's end at {glyph}"
    colour = bob.js("return window.easel.session.peers().find(p => p.replica === arguments[0]).color", ann_replica)
    assert [c for r, c in peer_carets(bob) if r == ann_replica] == [colour], "Ann's caret in Ann's colour"
    SHOTS.mkdir(parents=True, exist_ok=True)
    ann.driver.save_screenshot(str(SHOTS / "live-text-ann-1280.png"))
    bob.driver.save_screenshot(str(SHOTS / "live-text-bob-1280.png"))

    # Each page's caret stayed after its own last keystroke through the other's.
    ann_caret = ann.js("const e = document.getElementById('text-editor'); return e.value.slice(0, e.selectionEnd)")
    bob_caret = bob.js("const e = document.getElementById('text-editor'); return e.value.slice(0, e.selectionEnd)")
    assert ann_caret.endswith(typed["ann"]) and bob_caret.endswith(typed["bob"]), (ann_caret, bob_caret)

    for editor in (ann_editor, bob_editor):
        editor.send_keys(Keys.ENTER)
    for page in (ann, bob):
        wait_until(lambda: [e[3] for e in page.entities() if e[0] == text] == [merged], what="the drawn text merged")
    wait_until(lambda: not peer_carets(ann) and not peer_carets(bob), what="carets gone when typing ends")


def test_a_composition_goes_in_whole_where_it_began_even_when_a_peer_typed_meanwhile(server, browsers):
    document = "web/live-text-ime"
    ann, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    ann.place_text("ab", x=300, y=200)
    text = wait_until(lambda: [e[0] for e in bob.entities() if e[1] == "text"], what="the text on Bob's page")[0]
    ann_editor = open_text_for_typing(ann, text)
    bob_editor = open_text_for_typing(bob, text)
    bob_editor.send_keys(Keys.HOME)
    # Ann composes at the end while Bob types at the start.
    ann.driver.execute_cdp_cmd("Input.imeSetComposition", {"text": "にほ", "selectionStart": 2, "selectionEnd": 2})
    bob_editor.send_keys("Bob ")
    wait_until(lambda: ann.js("return window.easel.session.caret()?.text") == "Bob ab",
               what="Bob's typing merged under Ann's composition")
    assert editor_value(ann) == "abにほ", "nothing changes under a composition"
    ann.driver.execute_cdp_cmd("Input.insertText", {"text": "日本"})
    wait_until(lambda: editor_value(ann) == "Bob ab日本", what="the composition in whole, after what it followed")
    wait_until(lambda: editor_value(bob) == "Bob ab日本", what="and on Bob's page")
    ann_editor.send_keys(Keys.ENTER)
    bob_editor.send_keys(Keys.ENTER)


def test_typing_in_place_on_a_phone_sized_page_shows_the_peers_caret(server, browsers):
    document = "web/live-text-phone"
    ann_driver, bob_driver = browsers(1280, 800), browsers(390, 844)
    bob_driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    ann, bob = Canvas(ann_driver, server, document), Canvas(bob_driver, server, document)
    ann.place_text("List", x=250, y=300)
    text = wait_until(lambda: [e[0] for e in bob.entities() if e[1] == "text"], what="the text on the phone")[0]
    ann_editor = open_text_for_typing(ann, text)
    bob_editor = open_text_for_typing(bob, text)
    ann_editor.send_keys(": eggs")
    wait_until(lambda: editor_value(bob) == "List: eggs", what="Ann's typing on the phone")
    ann_replica = ann.js("return window.easel.session.replica")
    wait_until(lambda: any(r == ann_replica for r, _ in peer_carets(bob)), what="Ann's caret on the phone")
    bob_editor.send_keys(Keys.HOME, "My ")
    wait_until(lambda: editor_value(ann) == "My List: eggs", what="the phone's typing on the laptop")
    bob_replica = bob.js("return window.easel.session.replica")
    wait_until(lambda: any(r == bob_replica for r, _ in peer_carets(ann)), what="the phone's caret on the laptop")
    SHOTS.mkdir(parents=True, exist_ok=True)
    bob_driver.save_screenshot(str(SHOTS / "live-text-390.png"))
    ann_driver.save_screenshot(str(SHOTS / "live-text-laptop-1280.png"))
