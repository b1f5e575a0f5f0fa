"""The emoji picker: hundreds of emoji in categories, a search by name, and
the emoji placed last first the next time it opens."""

from pages import Canvas, wait_until


def test_the_picker_searches_places_and_remembers_recent_emoji(server, browsers):
    page = Canvas(browsers(), server, "web/emoji-picker")
    page.click("#emoji-more")
    picker = page.driver.find_element("id", "emoji-picker")
    assert picker.is_displayed()
    offered = page.js("return document.querySelectorAll('#emoji-grid button').length")
    headings = page.js("return [...document.querySelectorAll('#emoji-grid h3')].map(h => h.textContent)")
    assert offered >= 200 and len(headings) >= 6, (offered, headings)

    page.driver.find_element("id", "emoji-search").send_keys("fox")
    found = wait_until(lambda: page.js("return [...document.querySelectorAll('#emoji-grid button')].map(b => b.textContent)"),
                       what="search results")
    assert "🦊" in found and len(found) < 5, found
    page.click("#emoji-grid button[title='🦊']")
    wait_until(lambda: [e[3] for e in page.entities()] == ["🦊"], what="the fox placed")
    assert not picker.is_displayed(), "placing closes the picker"

    page.click("#emoji-more")
    assert page.js("return document.querySelector('#emoji-grid h3').textContent") == "Recent"
    assert page.js("return document.querySelector('#emoji-grid .emoji-row button').textContent") == "🦊"
    page.click("#emoji-tabs button[title='Food']")
    wait_until(lambda: page.js("const h = document.querySelector(\"#emoji-grid h3[data-category='Food']\");"
                               "const g = document.getElementById('emoji-grid');"
                               "return Math.abs(h.getBoundingClientRect().top - g.getBoundingClientRect().top) < 4"),
               what="the Food tab scrolls to its emoji")
