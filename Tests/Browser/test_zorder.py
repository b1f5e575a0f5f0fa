"""Z-order buttons that mean what they say, in a real page: forward passes
the next emoji that overlaps, not one that does not; to front and to back
go all the way; a button that would change nothing is hidden."""

from pages import Canvas, wait_until


def shown(page):
    return page.js("return ['front', 'forward', 'backward', 'back']"
                   ".filter(id => !document.getElementById(id).hidden)")


def order(page):
    return [entity[0] for entity in page.entities()]


def test_forward_passes_the_next_overlapping_entity_and_front_and_back_go_all_the_way(server, browsers):
    document = "web/z-order"
    ada, bob = Canvas(browsers(), server, document), Canvas(browsers(), server, document)
    cx, cy = round(ada.width / 2), round(ada.height / 2)
    # A star a little left of the centre, a fox far right, a tree at the centre over the star.
    ada.place_emoji("⭐️")
    star = wait_until(lambda: order(ada), what="the star")[0]
    ada.drag(cx, cy, -20, 0)
    ada.place_emoji("🦊")
    fox = wait_until(lambda: [e for e in order(ada) if e != star], what="the fox")[0]
    ada.drag(cx, cy, 300, 0)
    ada.place_emoji("🌲")
    tree = wait_until(lambda: [e for e in order(ada) if e not in (star, fox)], what="the tree")[0]
    wait_until(lambda: order(bob) == [star, fox, tree], what="bottom to top: star, fox, tree on the other page")

    ada.tap(cx - 38, cy)  # the star alone lies there
    wait_until(lambda: ada.state["selection"] == [star], what="the star selected")
    assert wait_until(lambda: shown(ada) == ["front", "forward"] and shown(ada)) == ["front", "forward"]

    # Forward passes the tree, which overlaps the star, not the fox, which does not.
    ada.click("#forward")
    for page in (ada, bob):
        wait_until(lambda: order(page) == [fox, tree, star], what="the star past the tree alone")
    wait_until(lambda: shown(ada) == ["backward", "back"], what="only backward and to back left to offer")

    ada.click("#back")
    for page in (ada, bob):
        wait_until(lambda: order(page) == [star, fox, tree], what="the star at the back")
    wait_until(lambda: shown(ada) == ["front", "forward"], what="front and forward offered again")
    ada.click("#front")
    for page in (ada, bob):
        wait_until(lambda: order(page) == [fox, tree, star], what="the star at the front")
    ada.click("#undo")
    for page in (ada, bob):
        wait_until(lambda: order(page) == [star, fox, tree], what="one undo a step")
