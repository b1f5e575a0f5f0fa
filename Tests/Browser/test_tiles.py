"""The tiles big boards are drawn with (view.mjs, tiles.mjs) draw the picture
`easel render` draws: a board of every kind of entity, the tiles forced on
for it, against the render rasterised by the same Chromium, at several
zooms; and what moves is drawn over the tiles and goes back into them."""

import subprocess

from PIL import Image
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys

from conftest import ROOT, easel_binary
from pages import Canvas, wait_until
from pictures import SHOTS, differing_pixels, inked_pixels
from test_images import quadrant_png

# What differs between the tiles and the render, as a share of the render's
# inked pixels (pictures.CHANNEL_TOLERANCE says what differing means):
# anti-aliased edges and glyphs rasterised at another subpixel offset.
MOST_DIFFERING = 0.02
# The renderer's filters the tiles approximate (Docs/web.md): neon's glow as
# a shadow, the pencil's grain as its mean opacity, the blur eraser's blur
# over what the tile holds.
MOST_DIFFERING_APPROXIMATED = 0.03

FAITHFUL = """
place shape ellipse at 400 420 size 360 120
tap 400 420
set fill #8b5a2bff
place emoji "🍎" at 330 360 size 64
place emoji "🍐" at 400 350 size 64
place emoji "🍋" at 470 365 size 64
place text "Still life" at 400 150 font "Georgia" size 48
tap 900 900
tap 400 150
set style outlined
place text "framed, right" at 200 250 font "DejaVu Sans" size 22
tap 900 900
tap 200 250
set style framed
set align right
place shape star at 620 190
shape arrow from 420 40 to 540 100
shape bubble from 600 250 to 760 330
tool pen color #1f3b73ff weight 4
draw through 40 60, 140 40, 240 70, 340 50 at 120 pressure 0.6
tool brush color #8c2d19ff weight 16
draw through 40 160, 140 140, 240 170, 340 150 at 150 pressure 0.9
tool marker color #f2b705ff weight 18
draw through 40 320, 340 300 at 400
erase pixels through 60 330, 200 300, 300 120 weight 14
place image "{image}" at 640 440
tap 900 900
"""


def bot(server, document, script, folder):
    path = folder / "board.easel"
    path.write_text(script)
    result = subprocess.run([str(easel_binary()), "bot", "--url", server.ws, "--doc", document, "--script", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def render(server, document, browser, folder, zoom):
    """`easel render` as Chromium draws it at `zoom`; with its frame."""
    svg = folder / f"render-{zoom}.svg"
    result = subprocess.run([str(easel_binary()), "render", "--db", str(server.database), "--doc", document,
                             "--embed-images", "-o", str(svg)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    text = svg.read_text()
    import re
    frame = [float(n) for n in re.search(r'viewBox="([^"]+)"', text).group(1).split()]
    sized = re.sub(r'width="[^"]+" height="[^"]+">', f'width="{frame[2] * zoom}" height="{frame[3] * zoom}">', text, 1)
    svg.write_text(sized)
    browser.get(svg.as_uri())
    picture = folder / f"render-{zoom}.png"
    browser.save_screenshot(str(picture))
    return Image.open(picture).convert("RGB"), frame


def tiles_settled(page, zoom=None):
    """Whether the tiles on screen are all drawn (at `zoom`, when given)."""
    return page.js("const t = window.easel.view.tiled;"
                   "return !!t && t.isSettled() && (arguments[0] === null || Math.abs(t.view.zoom - arguments[0]) < 1e-4);",
                   zoom)


def compare(page, server, document, renderer_browser, folder, zoom, name):
    """How many of the render's inked pixels the page's tiles draw otherwise,
    at `zoom` (the view zoomed about the canvas's corner)."""
    screen, expected, x0, y0 = tiles_and_render(page, server, document, renderer_browser, folder, zoom, name)
    width, height = expected.size
    ink = inked_pixels(expected)
    differing = min(
        differing_pixels(screen.crop((round(x0) + dx, round(y0) + dy, round(x0) + dx + width, round(y0) + dy + height)),
                         expected)
        for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    print(f"{name} at zoom {zoom}: {differing} of {ink} inked pixels differ")
    return differing, ink


def tiles_and_render(page, server, document, renderer_browser, folder, zoom, name):
    """The page's screen with the tiles drawn at `zoom` (the view zoomed
    about the canvas's corner), the render at that zoom cut to what both
    show, and where the render's frame starts on the screen."""
    page.js(f"window.easel.session.perform('zoomTo', {{x: 0, y: 0, zoom: {zoom}}});")
    wait_until(lambda: abs(page.viewport()[2] - zoom) < 1e-4, what=f"zoom {zoom}")
    wait_until(lambda: tiles_settled(page, zoom), what="the tiles drawn at the new zoom")
    pan_x, pan_y, _ = page.viewport()
    shot = SHOTS / f"{name}-page.png"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.driver.save_screenshot(str(shot))
    screen = Image.open(shot).convert("RGB")
    reference, frame = render(server, document, renderer_browser, folder, zoom)
    # The frame on the page, kept to what both pictures show.
    x0 = page.left + pan_x + frame[0] * zoom
    y0 = page.top + pan_y + frame[1] * zoom
    width = min(round(frame[2] * zoom), reference.width, round(page.left + page.width - x0) - 1)
    height = min(round(frame[3] * zoom), reference.height, round(page.top + page.height - y0) - 1)
    expected = reference.crop((0, 0, width, height))
    screen.crop((round(x0), round(y0), round(x0) + width, round(y0) + height)).save(SHOTS / f"{name}-tiles.png")
    expected.save(SHOTS / f"{name}-render.png")
    return screen, expected, x0, y0


def open_tiled(browsers, server, document):
    page = Canvas(browsers(1200, 800), server, document)
    # Tiles from the first entity on; peers and handles out of the picture.
    page.js("const v = window.easel.view; v.tilesFrom = 0; v.tilesUntil = 0; v.chooseRenderer();"
            "for (const id of ['peers', 'tools', 'options']) document.getElementById(id).style.display = 'none';")
    wait_until(lambda: tiles_settled(page), what="the tiles drawn")
    return page


def test_the_tiles_draw_what_easel_render_draws_at_every_zoom(server, browsers, tmp_path):
    document = "web/tiles-faithful"
    image = tmp_path / "quadrants.png"
    image.write_bytes(quadrant_png(120, 80))
    bot(server, document, FAITHFUL.replace("{image}", str(image)), tmp_path)
    page = open_tiled(browsers, server, document)
    assert page.js("return document.querySelectorAll('#entities > g').length") == 0, "no entity is an SVG element"
    assert page.js("return document.querySelectorAll('#tiles canvas').length") > 0
    renderer = browsers(1600, 1000)
    for zoom in (1, 0.5, 1.3):
        differing, ink = compare(page, server, document, renderer, tmp_path, zoom, f"tiles-faithful-{zoom}")
        assert ink > 2000, "the board is drawn"
        assert differing <= MOST_DIFFERING * ink, f"zoom {zoom}: {differing} of {ink}"


def test_the_tiles_approximate_only_neon_the_pencil_and_the_blur_eraser(server, browsers, tmp_path):
    document = "web/tiles-drawing"
    bot(server, document, (ROOT / "examples" / "bots" / "drawing.easel").read_text(), tmp_path)
    page = open_tiled(browsers, server, document)
    renderer = browsers(1600, 1000)
    differing, ink = compare(page, server, document, renderer, tmp_path, 1, "tiles-drawing")
    assert differing <= MOST_DIFFERING_APPROXIMATED * ink, f"{differing} of {ink}"


def test_a_dragged_entity_leaves_the_tiles_while_selected_and_goes_back_where_it_was_dropped(server, browsers, tmp_path):
    document = "web/tiles-drag"
    bot(server, document, 'place emoji "🦊" at 300 300 size 64\nplace emoji "🌲" at 500 300 size 64\ntap 900 900\n',
        tmp_path)
    page = open_tiled(browsers, server, document)
    fox_at = lambda: page.js("return window.easel.view.tiled.drawings.size")
    assert fox_at() == 2
    page.press(300, 300, [(320, 300), (360, 320)])
    lifted = wait_until(lambda: page.js("return [...window.easel.view.tiled.lifted]"), what="the fox lifted")
    assert len(lifted) == 1
    assert page.js("return document.querySelectorAll('#entities > g').length") == 1, "the fox alone is an element"
    page.release()
    page.select_nothing()
    wait_until(lambda: page.js("return window.easel.view.tiled.lifted.size") == 0, what="the fox back in the tiles")
    wait_until(lambda: tiles_settled(page), what="the tiles mended")
    assert page.js("return document.querySelectorAll('#entities > g').length") == 0
    renderer = browsers(1600, 1000)
    differing, ink = compare(page, server, document, renderer, tmp_path, 1, "tiles-dropped")
    assert differing <= MOST_DIFFERING * ink, "the fox is drawn where it was dropped, and only there"


def test_a_selection_dragged_over_the_tiles_moves_as_one_layer_and_goes_back_where_it_was_dropped(
        server, browsers, tmp_path):
    document = "web/tiles-drag-layer"
    fruit = "🍎🍐🍋🍊🍇🍓🍒🍑🥝🍍"
    script = "".join(f'place emoji "{emoji}" at {120 + 60 * index} {200 + 30 * (index % 3)} size 48\n'
                     for index, emoji in enumerate(fruit))
    bot(server, document, script + "tap 900 900\n", tmp_path)
    page = open_tiled(browsers, server, document)
    ActionChains(page.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    wait_until(lambda: len(page.state["selection"]) == len(fruit), what="every fruit selected")
    page.press(120, 200, [(150, 220), (200, 260)])
    wait_until(lambda: page.js("const m = document.getElementById('moving');"
                               "return !!m && m.isConnected && m.style.transform !== ''"),
               what="the selection moved as one layer")
    # Each element as its fragment draws it where it is: the layer alone moves.
    moved = page.js("const v = window.easel.view;"
                    "return [...document.querySelectorAll('#moving g[data-id]')].map((element) =>"
                    "  v.fragments.get(element.dataset.id).svg.includes(`transform=\"${element.getAttribute('transform')}\"`))")
    assert len(moved) == len(fruit), "every fruit is in the moving layer"
    assert all(moved), "no fruit's own transform was touched"
    assert page.js("return document.querySelectorAll('#entities > g').length") == 0
    page.release()
    page.select_nothing()
    wait_until(lambda: page.js("const m = document.getElementById('moving'); return !m || !m.isConnected"),
               what="the moving layer gone")
    wait_until(lambda: page.js("return window.easel.view.tiled.lifted.size") == 0, what="the fruit back in the tiles")
    wait_until(lambda: tiles_settled(page), what="the tiles mended")
    renderer = browsers(1600, 1000)
    differing, ink = compare(page, server, document, renderer, tmp_path, 1, "layer-dropped")
    assert differing <= MOST_DIFFERING * ink, "the fruit is drawn where it was dropped, and only there"


def test_a_live_stroke_leaves_the_tiles_while_it_grows_and_goes_back_drawn_as_easel_render_draws_it(
        server, browsers, tmp_path):
    document = "web/tiles-live-stroke"
    bot(server, document, 'place emoji "🦊" at 300 300 size 64\nplace emoji "🌲" at 500 300 size 64\ntap 900 900\n',
        tmp_path)
    page = Canvas(browsers(1200, 800), server, document)
    page.js("const v = window.easel.view; v.tilesFrom = 0; v.tilesUntil = 0; v.chooseRenderer();")
    wait_until(lambda: tiles_settled(page), what="the tiles drawn")
    page.choose("draw")
    # A pointer move every 20 ms, as a hand gives them.
    actions = ActionBuilder(page.driver, duration=20)
    pointer = actions.pointer_action
    pointer.move_to_location(round(page.left + 200), round(page.top + 200))
    pointer.pointer_down()
    for step in range(1, 30):
        pointer.move_to_location(round(page.left + 200 + step * 12), round(page.top + 200 + (step % 6) * 15))
    actions.perform()
    stroke = wait_until(lambda: [e[0] for e in page.entities() if e[1] == "stroke"], what="the stroke")[0]
    wait_until(lambda: page.js("return window.easel.view.tiled.lifted.has(arguments[0])", stroke),
               what="the growing stroke lifted out of the tiles")
    assert page.js("return [...document.querySelectorAll('#entities > g')].map((g) => g.dataset.id)") == [stroke]
    painted = page.js("return window.easel.view.tiled.stats.painted")
    actions = ActionBuilder(page.driver, duration=20)
    pointer = actions.pointer_action
    for step in range(30, 50):
        pointer.move_to_location(round(page.left + 200 + step * 12), round(page.top + 200 + (step % 6) * 15))
    pointer.pointer_up()
    actions.perform()
    # The tiles under the stroke were not painted again sample by sample.
    assert page.js("return window.easel.view.tiled.stats.painted") - painted <= 2
    page.choose("select")
    page.select_nothing()
    wait_until(lambda: page.js("return window.easel.view.tiled.lifted.size") == 0, what="the stroke back in the tiles")
    wait_until(lambda: tiles_settled(page), what="the tiles mended")
    assert page.js("return document.querySelectorAll('#entities > g').length") == 0
    page.js("for (const id of ['peers', 'tools', 'options']) document.getElementById(id).style.display = 'none';")
    differing, ink = compare(page, server, document, browsers(1600, 1000), tmp_path, 1, "tiles-live-stroke")
    assert differing <= MOST_DIFFERING * ink, "the stroke is drawn whole on the tiles"


def test_changes_far_apart_on_one_tile_are_mended_apart_painting_only_what_each_meets(server, browsers, tmp_path):
    # Two foxes at a tile's corners, a row of trees between them: the tile's
    # mend after both foxes change paints the foxes, not the trees a box
    # around both would hold.
    trees = "".join(f'place emoji "🌲" at {120 + 50 * n} 250 size 32\n' for n in range(6))
    bot(server, document := "web/tiles-apart",
        f'place emoji "🦊" at 40 40 size 32\n{trees}place emoji "🦊" at 460 460 size 32\ntap 900 900\n', tmp_path)
    page = open_tiled(browsers, server, document)
    assert page.js("return window.easel.view.tiled.drawings.size") == 8
    page.js("window.easel.session.perform('zoomTo', {x: 0, y: 0, zoom: 1});")
    wait_until(lambda: tiles_settled(page, 1), what="the tiles drawn at zoom 1")
    painted = page.js("""
        const tiled = window.easel.view.tiled;
        const foxes = [...tiled.drawings.values()].filter((d) => d.bounds[1] < 100 || d.bounds[1] > 400);
        const holds = (tile, b) => { const a = tiled.tileArea(tile); return a[0] <= b[0] && a[1] <= b[1] && b[2] <= a[2] && b[3] <= a[3]; };
        if (![...tiled.tiles.values()].some((tile) => foxes.every((fox) => holds(tile, fox.bounds)))) return 'not on one tile';
        const before = tiled.stats.painted;
        for (const fox of foxes) tiled.dirty(fox.bounds);
        tiled.draw(1000);
        return [foxes.length, tiled.stats.painted - before];""")
    assert painted == [2, 2], "each fox mended with what it meets, the trees between untouched"
    assert tiles_settled(page)


def test_far_zoomed_out_entities_are_specks_of_the_colour_the_render_gives_them(server, browsers, tmp_path):
    # A board of every kind but images, 40 × 24 of them, each at most about
    # 50 units across: at zoom 0.05, under 3 pixels (specks below 4).
    lines = []
    for row in range(24):
        for column in range(40):
            x, y = 40 + column * 40, 40 + row * 40
            kind = (row + column) % 4
            if kind == 0:
                lines.append(f'place emoji "{"🦊🍏🌊"[row % 3]}" at {x} {y} size 24')
            elif kind == 1:
                lines.append(f"place shape star at {x} {y} size 24 24")
            elif kind == 2:
                lines.append(f'place text "Hi" at {x} {y} size 8')
            else:
                lines.append(f"draw through {x - 10} {y - 10}, {x + 10} {y + 10} at 60")
    bot(server, document := "web/tiles-specks", "\n".join(lines) + "\ntap 2000 2000\n", tmp_path)
    page = open_tiled(browsers, server, document)
    page.js("window.easel.view.tiled.stats.specks = 0;")
    renderer = browsers(1600, 1000)
    screen, expected, x0, y0 = tiles_and_render(page, server, document, renderer, tmp_path, 0.05, "tiles-specks")
    assert page.js("return window.easel.view.tiled.stats.specks") >= 960, "every entity drawn as a speck"
    # Colour in blocks of 4 × 4 pixels, a few entities each: what a speck
    # must keep is the colour the render gives the area, not the shape.
    width, height = expected.size
    tiles = screen.crop((round(x0), round(y0), round(x0) + width, round(y0) + height))
    def blocks(picture):
        reduced = picture.crop((0, 0, width // 4 * 4, height // 4 * 4)).reduce(4)
        return [reduced.getpixel((x, y)) for y in range(reduced.height) for x in range(reduced.width)]

    differences = sorted(max(abs(a - b) for a, b in zip(mine, theirs))
                         for mine, theirs in zip(blocks(tiles), blocks(expected)) if min(theirs) < 250)
    assert len(differences) > 100, "the board is drawn"
    typical, worst = differences[len(differences) // 2], differences[len(differences) * 95 // 100]
    print(f"specks against the render, 4 × 4 blocks: median {typical}, p95 {worst} of 255")
    assert typical <= 16 and worst <= 32
    # Closer, only the texts, whose letters are 2.4 pixels high (emoji,
    # stars and strokes are 8 or more across).
    page.js("window.easel.view.tiled.stats.specks = 0;")
    tiles_and_render(page, server, document, renderer, tmp_path, 0.3, "tiles-specks-texts")
    assert 240 <= page.js("return window.easel.view.tiled.stats.specks") <= 4 * 240
    # Close up, nothing is a speck.
    page.js("window.easel.view.tiled.stats.specks = 0;")
    compare(page, server, document, renderer, tmp_path, 1, "tiles-specks-close")
    assert page.js("return window.easel.view.tiled.stats.specks") == 0



def test_a_big_board_is_never_blank_while_a_pinch_zooms_on_faster_than_its_tiles_are_drawn(server, browsers, tmp_path):
    # 2,100 emoji: a board big enough to keep an overview beneath its tiles.
    lines = [f'place emoji "{"🦊🍏🌊🌲"[(row + column) % 4]}" at {40 + column * 40} {40 + row * 40} size 24'
             for row in range(35) for column in range(60)]
    bot(server, document := "web/tiles-overview", "\n".join(lines) + "\ntap 3000 3000\n", tmp_path)
    page = open_tiled(browsers, server, document)
    page.js("window.easel.session.perform('zoomTo', {x: 0, y: 0, zoom: 0.5});")
    overview_drawn = ("const o = window.easel.view.tiled.overview;"
                      "return !!o && o.tiles.size > 0 && [...o.tiles.values()].every((t) =>"
                      "  t.canvas.isConnected && !t.dirty && !t.job)")
    wait_until(lambda: tiles_settled(page, 0.5) and page.js(overview_drawn), what="the tiles and the overview drawn")
    assert page.js("return window.easel.view.tiled.overview.element.style.visibility") == "hidden", \
        "with the screen drawn at its zoom, the overview is not seen"
    # Three steps of a pinch, each past what tiles are stretched to, with
    # no time to draw between them: two in, then out, past what the drawn
    # plane covers.
    steps = page.js("""
        const tiled = window.easel.view.tiled;
        const drawn = tiled.main;
        const { panX, panY, zoom, width, height } = tiled.view;
        const step = (factor) => {
          tiled.setView(panX, panY, zoom * factor, width, height);
          tiled.draw(0);
          const onScreen = tiled.tilesOnScreen(0);
          return { keptDrawn: tiled.previous?.plane === drawn, drawnAtZoom: tiled.main.scale === zoom * factor,
                   undrawn: onScreen.filter((tile) => !tile.canvas.isConnected).length,
                   blank: onScreen.filter((tile) => tiled.isBlank(tile)).length,
                   overview: tiled.overview.element.style.visibility,
                   drawnCovers: tiled.onScreen(tiled.previous?.covered ?? []) };
        };
        return [step(1.6), step(1.6 * 1.6), step(1 / 3)];""")
    for step in steps:
        assert step["drawnAtZoom"] and step["undrawn"] > 0, step
        assert step["blank"] == 0 and step["overview"] == "visible", "the overview shows where nothing is drawn yet"
    assert steps[1]["keptDrawn"], "the drawn plane is kept beneath, not the one barely begun"
    assert steps[2]["keptDrawn"] and steps[2]["drawnCovers"] < 0.5, "zoomed out, the overview covers the rest"
    page.js("window.easel.session.perform('zoomTo', {x: 0, y: 0, zoom: 1});")
    wait_until(lambda: tiles_settled(page, 1), what="the tiles drawn at the pinch's end")
    assert page.js("return window.easel.view.tiled.overview.element.style.visibility") == "hidden"


def test_entities_still_to_come_around_the_screen_count_towards_choosing_the_tiles(server, browsers):
    # After a welcome the module draws the screen first and says how many
    # around it are still to come: a big board goes to the tiles at once,
    # not to thousands of SVG elements first.
    page = Canvas(browsers(1200, 800), server, "web/tiles-to-come")
    chosen = page.js("""
        const view = window.easel.view;
        const before = !!view.tiled;
        view.apply([], performance.now(), view.tilesFrom + 1);
        const waiting = !!view.tiled;
        view.apply([], performance.now(), 0);
        return [before, waiting, !!view.tiled];""")
    assert chosen == [False, True, False], "tiles while thousands are to come, SVG once none are"


def test_tiles_are_filled_with_a_background_of_one_opaque_colour_and_left_clear_over_a_background_image(
        server, browsers, tmp_path):
    # Filled, a tile hides what lies beneath it (the overview, the zoom
    # before); over an image it must let the image through.
    document = "web/tiles-ground"
    bot(server, document, 'place emoji "🦊" at 100 100 size 40\nbackground #ffe0c0ff\ntap 900 900\n', tmp_path)
    page = open_tiled(browsers, server, document)
    page.js("window.easel.session.perform('zoomTo', {x: 0, y: 0, zoom: 1});")
    wait_until(lambda: tiles_settled(page, 1), what="the tiles drawn at zoom 1")
    empty_pixel = ("const tiled = window.easel.view.tiled; const tile = tiled.tiles.get('0,0');"
                   "return [tiled.ground, [...tile.canvas.getContext('2d').getImageData(400, 400, 1, 1).data]]")
    assert page.js(empty_pixel) == ["#ffe0c0", [255, 224, 192, 255]]
    image = tmp_path / "ground.png"
    image.write_bytes(quadrant_png(120, 80))
    bot(server, document, f'background image "{image}"\n', tmp_path)
    wait_until(lambda: page.js("return window.easel.view.tiled.ground") is None, what="the image's arrival")
    wait_until(lambda: tiles_settled(page, 1), what="the tiles drawn again")
    assert page.js(empty_pixel) == [None, [0, 0, 0, 0]]
