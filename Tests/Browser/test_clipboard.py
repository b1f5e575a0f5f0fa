"""Copy, cut and paste through the system clipboard in a real browser: the
selection copied in one document is pasted into another as new entities
that look the same, at the pointer, selected; cut takes them away; plain
text pastes as a text. Ctrl/⌘ C, X and V reach the page as the browser's
own clipboard commands (CDP key events carrying them, as a keyboard does)."""

from pages import Canvas, wait_until


def key(page, letter, command):
    """Ctrl + a letter, carrying the editing command a real keyboard's would."""
    base = {"key": letter, "code": f"Key{letter.upper()}", "modifiers": 2,
            "windowsVirtualKeyCode": ord(letter.upper())}
    page.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", **base, "commands": [command]})
    page.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", **base})


def looks(page):
    """What each entity shows, bottom first: its kind and text, without IDs or places."""
    return [(entity[1], entity[3]) for entity in page.entities()]


def test_copy_in_one_document_and_paste_into_another_makes_new_entities_there(server, browsers):
    driver = browsers()
    driver.execute_cdp_cmd("Browser.grantPermissions", {
        "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": server.http})
    source = Canvas(driver, server, "web/clip-from")
    source.place_emoji("⭐️")
    # A frame passes mid-typing, as on a busy machine: the text is placed
    # with "n" and "ote" is typed into it (a copy must carry all of it).
    source.choose("text")
    source.tap(500, 200)
    editor = driver.find_element("id", "text-editor")
    wait_until(lambda: editor.is_displayed(), what="the text editor open")
    editor.send_keys("n")
    wait_until(lambda: [e[3] for e in source.entities()] == ["⭐️", "n"], what="the text placed with its first letter")
    editor.send_keys("ote", "\n")
    wait_until(lambda: source.state["selection"], what="the text placed and selected")
    source.select_nothing()
    wait_until(lambda: len(source.entities()) == 2, what="a star and a text")
    key(source, "a", "selectAll")
    wait_until(lambda: len(source.state["selection"]) == 2, what="all selected")
    key(source, "c", "copy")
    copied = driver.execute_async_script(
        "const done = arguments[0]; navigator.clipboard.readText().then(done, (e) => done('failed: ' + e))")
    assert copied.startswith('{"easel":"clipping","version":1,'), copied[:80]
    ids = {entity[0] for entity in source.entities()}
    # Read now: `source` and `target` share one browser, so once it goes to
    # the other document, looks(source) would read that one.
    copied_looks = looks(source)
    assert copied_looks == [("emoji", "⭐️"), ("text", "note")], copied_looks

    target = Canvas(driver, server, "web/clip-to")
    target.hover(300, 300)
    key(target, "v", "paste")
    wait_until(lambda: looks(target) == copied_looks, what="the same entities in the other document")
    pasted = {entity[0] for entity in target.entities()}
    assert not pasted & ids, "new entities, not the copied ones"
    wait_until(lambda: set(target.state["selection"]) == pasted, what="what was pasted is selected")
    # The box around what was pasted is centred at the pointer (a clipping
    # that carried the text as placed, "n", but was centred on "note" put it
    # 14.4 px off).
    pointer = (round(target.left + 300), round(target.top + 300))
    box = target.js("const b = document.querySelector('#handles .selection-box').getBoundingClientRect();"
                    "return [b.left + b.width / 2, b.top + b.height / 2];")
    assert abs(box[0] - pointer[0]) < 3 and abs(box[1] - pointer[1]) < 3, f"centred at the pointer {pointer}: {box}"
    wait_until(lambda: not target.state["pending"], what="the paste saved")

    # Cut takes the selection away, and its paste brings it back.
    key(target, "x", "cut")
    wait_until(lambda: target.entities() == [], what="cut away")
    key(target, "v", "paste")
    wait_until(lambda: looks(target) == copied_looks, what="pasted back")

    # Plain text pastes as a text.
    driver.execute_async_script(
        "const done = arguments[0]; navigator.clipboard.writeText('from elsewhere').then(done, done)")
    key(target, "v", "paste")
    wait_until(lambda: ("text", "from elsewhere") in looks(target), what="plain text as a text")
