// The entities that are not changing, drawn once into bitmap tiles: square
// canvases of `TILE` pixels at one zoom, moved together by one CSS
// transform when the view pans (the compositor's work, not the page's) and
// scaled by it while a zoom is under way, then drawn again at the new zoom.
// An entity that changes redraws only the part of the tiles its old and
// new paint covered, with the entities there, in z-order. Entities lifted
// out (being dragged, selected, typed into) are drawn elsewhere and left
// out of the tiles until they are put back.
import { PaintGrid, meets } from './tile-grid.mjs';
import { EmojiAtlas, INITIAL_STYLE, forgetContextState, measureSpeck, paintArea, paintEraser, paintNode,
  paintSpeck, speckSignature } from './tile-painter.mjs';
import { scanSVG } from './svg-scan.mjs';

export const TILE = 512;
/** How long tiles may draw in a frame (ms), and before the screen is first whole. */
const FRAME_BUDGET_MS = 6;
const FIRST_SCREEN_BUDGET_MS = 50;
/** How long tiles may draw in a frame (ms) while most of the screen is
 * blank (neither drawn nor covered by the zoom before or the overview): a
 * board zoomed far out fills in a few long frames rather than in hundreds
 * of short ones. A blank edge (a pan, a small zoom out) keeps to the
 * frame's budget. */
const FILL_BUDGET_MS = 24;
/** A zoom held this long (ms) is drawn anew at its own scale: a zoom
 * gesture in progress moves the tiles by their transform alone. */
const ZOOM_SETTLES = 400;
/** Tiles scaled past this factor either way are drawn anew at once, zoom
 * held or not: blurred too much, or too many of them to cover the screen. */
const MOST_SCALED = 1.5;
/** How far around the screen tiles are drawn ahead for the next pan, in
 * tiles: the next row or column once the screen's edge is within half a
 * tile of it. (A whole tile around kept 20 at 1400 × 900, each about 1 MB
 * of pixels and as much again in the compositor.) */
const RING = 0.5;
/** Boards of at least this many entities keep an overview, when their
 * tiles are filled with their background (`ground`: over an image, clear
 * tiles would show it through): a plane of tiles at a far smaller zoom,
 * beneath the others, seen while tiles of the view's zoom are not drawn yet. While a pinch zooms on, the
 * tiles are drawn anew at each step of `MOST_SCALED` and a big board's
 * screen takes longer to draw than a step lasts: without it, what the old
 * tiles did not cover was blank, and the blank was filled in long frames. */
const OVERVIEW_FROM = 2000;
/** The overview's zoom is a power of two, an eighth to a sixteenth of the
 * view's (a screen of it is a tile or two), and every entity with a speck
 * is drawn in it as one (its colour's rectangle: no sprites or paths for a
 * fallback; images, erasers and what they erased are drawn whole); it is
 * picked again once the view's zoom is outside these multiples of it: one
 * overview lasts a pinch four to eight times closer, or two to four times
 * further out. */
const OVERVIEW_BELOW = 8;
const OVERVIEW_RANGE = [2, 64];
/** Tiles kept beyond those on screen and around it, most recently shown first. */
const SPARE_TILES = 8;
/** Canvases kept for reuse once their tile goes. A new canvas's first
 * frame costs the compositor a new shared bitmap: panning with small
 * zooms made and dropped tiles all along, and commits took 20 to 40 ms. */
const POOLED_CANVASES = 16;
/** A redraw of at most this many entities is done at once, in place; a
 * bigger one is drawn aside over several frames and then swapped in. */
const AT_ONCE = 300;
/** Entities fewer device pixels across than this (texts: with letters
 * fewer high) are drawn as specks of their colour (a level of detail for a
 * board zoomed far out): at that size no emoji, shape or stroke can be
 * told from another of its colour, and no text read. */
const SPECK_PIXELS = 4;
/** Specks kept measured, at most (a board has few kinds of entity, but
 * each colour and size of each is one). */
const MOST_SPECKS = 4096;
/** The separate parts of a tile waiting to be mended, at most: changes far
 * apart on one tile are mended apart, each with the entities it meets (as
 * one box around both, zoomed out on a big board, it held thousands; a
 * selection of 100 lifted there made 18 parts on one tile). Past this many,
 * a new part joins the one it grows least. */
const MOST_DIRTY_PARTS = 64;

/**
 * @typedef {{ id: string, bounds: number[], svg: string, node?: any, eraser?: any, hrefs?: string[],
 *   speck?: import('./tile-painter.mjs').Speck | null, across?: number }} Drawing
 * @typedef {{ key: string, column: number, row: number, plane: Plane, canvas: HTMLCanvasElement,
 *   dirty: number[][] | null, job: any, shownAt: number }} Tile
 */

export class TiledLayer {
  /**
   * @param {HTMLElement} container where the tiles go (behind the SVG)
   * @param {{ image: (href: string) => CanvasImageSource | null, fontFamily: () => string }} sources
   */
  constructor(container, sources) {
    this.container = container;
    this.sources = sources;
    /** The tiles at the zoom they are drawn at. @type {Plane} */
    this.main = newPlane(container, 0);
    /** @type {Map<string, Drawing>} */
    this.drawings = new Map();
    this.grid = new PaintGrid();
    /** Bottom to top. @type {string[]} */
    this.order = [];
    /** @type {Map<string, number>} */
    this.ranks = new Map();
    this.ranksStale = false;
    /** @type {Set<string>} */
    this.lifted = new Set();
    /** Entities first drawn since the last whole order, put on top until
     * it comes. @type {Set<string>} */
    this.newcomers = new Set();
    /** Definitions (erasers' ink, masks) by their SVG id. */
    this.definitions = new Map();
    this.view = { panX: 0, panY: 0, zoom: 1, width: 0, height: 0 };
    this.zoomChangedAt = 0;
    /** @type {HTMLCanvasElement[]} */
    this.scratches = [];
    /** Canvases of tiles gone, blank when taken again. @type {HTMLCanvasElement[]} */
    this.pool = [];
    this.atlas = new EmojiAtlas();
    /** Specks by what decides them (`speckSignature`). @type {Map<string, import('./tile-painter.mjs').Speck | null>} */
    this.specks = new Map();
    /** @type {HTMLCanvasElement | null} */
    this.speckScratch = null;
    /** What the tiles did since it was last reset: tiles made, mends done
     * (each changes a canvas the compositor then copies), entities painted
     * (and how many of them as specks), and milliseconds spent drawing. */
    this.stats = { made: 0, mends: 0, painted: 0, specks: 0, ms: 0 };
    this.framePending = false;
    /** Set once the layer is cleared for good. */
    this.disposed = false;
    /** The plane of the zoom before, while the new one is drawn, and the
     * document areas its drawn tiles cover.
     * @type {{ plane: Plane, covered: number[][] } | null} */
    this.previous = null;
    /** Big boards' plane far zoomed out, beneath (`OVERVIEW_FROM`). @type {Plane | null} */
    this.overview = null;
    /** Called each time the tiles on screen are all drawn. */
    this.onScreenComplete = () => {};
    this.screenShown = false;
    /** Whether most of the screen was blank and some still is. */
    this.filling = false;
    /** What every tile is filled with beneath its entities: the board's
     * background when it is one opaque colour, so that a tile hides what
     * lies beneath it (the overview, the zoom before, which showed
     * through as blurred halos); null leaves tiles clear over an image. */
    this.ground = null;
  }

  get size() { return this.drawings.size; }

  /** The zoom the tiles are drawn at, and they, by "column,row". */
  get scale() { return this.main.scale; }
  get tiles() { return this.main.tiles; }

  // MARK: What is drawn

  /** An entity drawn anew: its paint bounds and its SVG. */
  setDrawing(id, bounds, svg) {
    const old = this.drawings.get(id);
    if (old) this.forgetDefinitions(old);
    /** @type {Drawing} */
    const drawing = { id, bounds, svg };
    this.drawings.set(id, drawing);
    this.grid.set(id, bounds);
    if (!this.ranks.has(id)) {
      this.ranks.set(id, this.order.length);
      this.order.push(id);
      this.newcomers.add(id);
    }
    // Definitions are needed before anything that refers to them is painted.
    const defines = svg.includes('<defs');
    if (defines) this.compile(drawing);
    // A lifted entity is not on the tiles, unless others wear its ink.
    if (this.lifted.has(id) && !defines) return;
    this.dirty(old?.bounds);
    this.dirty(bounds);
  }

  remove(id) {
    const old = this.drawings.get(id);
    if (!old) return;
    this.refreshRanks();
    this.forgetDefinitions(old);
    this.drawings.delete(id);
    this.grid.delete(id);
    const rank = this.ranks.get(id);
    if (rank !== undefined) {
      this.order[rank] = '';
      this.ranks.delete(id);
    }
    this.dirty(old.bounds);
  }

  /** The whole bottom-to-top order. Only when it moves entities drawn
   * before against each other is everything drawn again: newcomers (a pan
   * or zoom brings thousands, a few thousand a render) were marked where
   * they are drawn. */
  setOrder(ids) {
    this.refreshRanks();
    let last = -1;
    let kept = true;
    for (const id of ids) {
      const rank = this.ranks.get(id);
      if (rank === undefined || this.newcomers.has(id)) continue;
      if (rank < last) { kept = false; break; }
      last = rank;
    }
    this.newcomers.clear();
    this.order = ids.slice();
    this.ranksStale = true;
    const listed = new Set(ids);
    for (const id of this.drawings.keys()) if (!listed.has(id)) this.order.push(id);
    if (!kept) this.dirtyEverything();
  }

  /** One entity put just below `above` (on top when null). */
  place(id, above) {
    this.refreshRanks();
    const from = this.ranks.get(id);
    if (from !== undefined) this.order.splice(from, 1);
    const below = above === null ? undefined : this.ranks.get(above);
    // Ranks past `from` moved down one with the splice.
    const to = below === undefined ? undefined : from !== undefined && below > from ? below - 1 : below;
    if (to === undefined) this.order.push(id); else this.order.splice(to, 0, id);
    this.ranksStale = true;
    this.dirty(this.drawings.get(id)?.bounds);
  }

  /** Entities drawn elsewhere from now on (`lifted`), and put back. */
  setLifted(ids) {
    for (const id of this.lifted) if (!ids.has(id)) this.dirty(this.drawings.get(id)?.bounds);
    for (const id of ids) if (!this.lifted.has(id)) this.dirty(this.drawings.get(id)?.bounds);
    this.lifted = new Set(ids);
  }

  /** The tiles' ground (`ground`): an opaque colour, or null. */
  setGround(color) {
    if (color === this.ground) return;
    this.ground = color;
    this.dirtyEverything();
  }

  /** An image's bytes came: the entities showing it are drawn again. */
  imageArrived(href) {
    for (const drawing of this.drawings.values()) {
      if (drawing.svg.includes(href)) this.dirty(drawing.bounds);
    }
  }

  refreshRanks() {
    if (!this.ranksStale) return;
    this.order = this.order.filter((id) => id !== '');
    this.ranks.clear();
    this.order.forEach((id, index) => this.ranks.set(id, index));
    this.ranksStale = false;
  }

  compile(drawing) {
    if (drawing.node) return drawing;
    const [node] = scanSVG(drawing.svg);
    drawing.node = node ?? { name: 'g', attributes: {}, children: [] };
    this.collectDefinitions(drawing.node, drawing);
    return drawing;
  }

  collectDefinitions(node, drawing) {
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      if (child.attributes.id) {
        this.definitions.set(child.attributes.id, child);
        (drawing.defined ??= []).push(child.attributes.id);
      }
      this.collectDefinitions(child, drawing);
    }
    // An older eraser: its ink and a "below" mask of its own.
    const ink = drawing.defined?.find((name) => name.startsWith('ink-'));
    const own = ink && drawing.defined?.includes(`below-${ink.slice(4)}`);
    if (own) drawing.eraser = { ink: this.definitions.get(ink), blurs: drawing.defined.includes(`in-${ink.slice(4)}`) };
  }

  forgetDefinitions(drawing) {
    for (const name of drawing.defined ?? []) this.definitions.delete(name);
  }

  // MARK: The view

  /** The view: screen = document × zoom + pan, and the screen's size. */
  setView(panX, panY, zoom, width, height) {
    const view = this.view;
    if (view.panX === panX && view.panY === panY && view.zoom === zoom && view.width === width
      && view.height === height) return;
    if (zoom !== view.zoom) this.zoomChangedAt = performance.now();
    this.view = { panX, panY, zoom, width, height };
    if (this.main.scale === 0) this.main.scale = zoom;
    this.placePlane();
    this.schedule();
  }

  placePlane() {
    const { panX, panY, zoom } = this.view;
    for (const plane of [this.main, this.previous?.plane, this.overview]) {
      if (plane) plane.element.style.transform = `translate(${panX}px, ${panY}px) scale(${zoom / plane.scale})`;
    }
  }

  // MARK: Drawing the tiles

  dirty(bounds) {
    if (!bounds) return;
    for (const tile of this.allTiles()) {
      const area = this.tileArea(tile);
      if (!meets(area, bounds)) continue;
      const part = [Math.max(area[0], bounds[0]), Math.max(area[1], bounds[1]),
        Math.min(area[2], bounds[2]), Math.min(area[3], bounds[3])];
      tile.dirty = addPart(tile.dirty ?? [], part);
    }
    this.schedule();
  }

  dirtyEverything() {
    for (const tile of this.allTiles()) tile.dirty = [this.tileArea(tile)];
    this.schedule();
  }

  /** The tiles that are mended: the view's and the overview's. */
  *allTiles() {
    yield* this.main.tiles.values();
    if (this.overview) yield* this.overview.tiles.values();
  }

  /** The document area a tile shows, at its plane's scale. */
  tileArea(tile) {
    const size = TILE / tile.plane.scale;
    return [tile.column * size, tile.row * size, (tile.column + 1) * size, (tile.row + 1) * size];
  }

  schedule() {
    if (this.framePending || this.disposed) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      // Until the screen is first whole there is nothing to keep smooth,
      // only a blank to fill: a larger budget paints it in fewer frames.
      if (!this.disposed) this.draw(this.screenShown ? FRAME_BUDGET_MS : FIRST_SCREEN_BUDGET_MS);
    });
  }

  /**
   * Draws what the screen needs, for at most `budget` ms: a settled zoom
   * starts the tiles anew at its scale; missing tiles are made and dirty
   * ones mended, nearest first. Asks for another frame while work is left.
   */
  draw(budget) {
    const started = performance.now();
    try {
      this.drawFor(budget, started);
    } finally {
      this.stats.ms += performance.now() - started;
    }
  }

  drawFor(budget, started) {
    const { zoom, width, height } = this.view;
    if (width === 0 || zoom <= 0 || !Number.isFinite(zoom)) return;
    const scaled = zoom / this.scale;
    const settled = started - this.zoomChangedAt >= ZOOM_SETTLES;
    if (zoom !== this.scale && (settled || scaled > MOST_SCALED || scaled < 1 / MOST_SCALED)) this.rescale(zoom);
    const needed = this.tilesOnScreen(0);
    const overview = this.keepOverview(zoom);
    // Once most of the screen was blank, until none of it is: what the
    // zoom before or the overview covers keeps to the frame's budget (the
    // screen of a big board drawn anew once a pinch settles takes seconds
    // in which bots go on editing and people look).
    const blank = this.screenShown ? needed.filter((tile) => this.isBlank(tile)).length : 0;
    const undrawn = needed.filter((tile) => !tile.canvas.isConnected).length;
    if (blank > needed.length / 2) this.filling = true;
    if (blank === 0) this.filling = false;
    if (this.filling) budget = Math.max(budget, FILL_BUDGET_MS);
    let left = false;
    let worked = false;
    let overviewLeft = false;
    // Where the screen has nothing of this zoom yet, the overview is seen:
    // drawn first while it is not whole, in a part of the frame.
    if (overview && undrawn > 0 && this.screenShown) {
      overviewLeft = !this.drawTiles(this.tilesOnScreen(0, overview), budget / 2, started);
      worked = true;
    }
    for (const tile of needed) {
      tile.shownAt = started;
      if (!tile.dirty && !tile.job) continue;
      if (worked && performance.now() - started > budget) { left = true; continue; }
      worked = true;
      if (!this.work(tile, budget - (performance.now() - started))) left = true;
    }
    if (!left) this.screenShown = true;
    if (!left && zoom === this.scale) this.onScreenComplete();
    if (!left) {
      // Past the first screen, the ring keeps to a frame's budget.
      budget = Math.min(budget, FRAME_BUDGET_MS);
      // The screen is whole: the zoom before it can go, and the tiles
      // around the screen are drawn while there is time, for the next pan,
      // then the overview, for the next pinch.
      this.dropPrevious();
      if (!this.drawTiles(this.tilesOnScreen(RING), budget, started)) left = true;
      else if (overview) overviewLeft = !this.drawTiles(this.tilesOnScreen(0, overview), budget, started);
    }
    this.dropSpareTiles(this.main, this.tilesOnScreen(RING), SPARE_TILES);
    if (overview) {
      this.dropSpareTiles(overview, this.tilesOnScreen(0, overview), 0);
      // Beneath a screen drawn at its zoom, it would only show through.
      overview.element.style.visibility = needed.every((tile) => tile.canvas.isConnected) ? 'hidden' : 'visible';
    }
    if (zoom !== this.scale) left = true;
    if (left || overviewLeft) this.schedule();
  }

  /** Mends these tiles while the frame's `budget` lasts (ms since
   * `started`); true when none is left to do. */
  drawTiles(tiles, budget, started) {
    for (const tile of tiles) {
      tile.shownAt = started;
      if (!tile.dirty && !tile.job) continue;
      if (performance.now() - started > budget) return false;
      if (!this.work(tile, budget - (performance.now() - started))) return false;
    }
    return true;
  }

  /** The overview a board of this size wants at `zoom`, picked anew (and
   * drawn again) once the zoom is out of its range; none for a small board. */
  keepOverview(zoom) {
    if (this.drawings.size < OVERVIEW_FROM || !this.ground) {
      this.dropPlane(this.overview);
      this.overview = null;
      return null;
    }
    const ratio = this.overview ? zoom / this.overview.scale : 0;
    if (ratio >= OVERVIEW_RANGE[0] && ratio <= OVERVIEW_RANGE[1]) return this.overview;
    this.dropPlane(this.overview);
    this.overview = newPlane(this.container, 2 ** Math.floor(Math.log2(zoom / OVERVIEW_BELOW)),
      { beneath: true, specks: true });
    this.placePlane();
    return this.overview;
  }

  /** Starts the tiles anew at `zoom`; those of the old zoom stay beneath,
   * scaled, until the new ones cover the screen. Of the two planes before,
   * the one covering more of the screen is kept: a pinch that zooms on
   * faster than a big board's screen is drawn would otherwise keep
   * swapping a drawn plane for a barely begun one. */
  rescale(zoom) {
    const drawn = (plane) => [...plane.tiles.values()].filter((tile) => tile.canvas.isConnected)
      .map((tile) => this.tileArea(tile));
    const covered = drawn(this.main);
    if (this.previous && this.onScreen(this.previous.covered) > this.onScreen(covered)) {
      this.dropPlane(this.main);
    } else {
      this.dropPrevious();
      for (const tile of [...this.main.tiles.values()]) {
        this.releaseJob(tile);
        // Never drawn: it is not in the plane kept beneath.
        if (!tile.canvas.isConnected) this.dropTile(tile);
      }
      this.previous = { plane: this.main, covered };
    }
    this.main = newPlane(this.container, zoom);
    this.placePlane();
  }

  /** How much of the screen these document areas (apart) cover, as a share. */
  onScreen(areas) {
    const screen = this.screenArea();
    let sum = 0;
    for (const area of areas) {
      const across = Math.min(area[2], screen[2]) - Math.max(area[0], screen[0]);
      const down = Math.min(area[3], screen[3]) - Math.max(area[1], screen[1]);
      if (across > 0 && down > 0) sum += across * down;
    }
    return sum / ((screen[2] - screen[0]) * (screen[3] - screen[1]));
  }

  /** The document area on the screen. */
  screenArea() {
    const { panX, panY, zoom, width, height } = this.view;
    return [-panX / zoom, -panY / zoom, (width - panX) / zoom, (height - panY) / zoom];
  }

  /** Whether a tile on screen shows nothing yet: never drawn, and not
   * under a drawn tile of the zoom before or of the overview (the corners
   * and middle of its part on the screen). */
  isBlank(tile) {
    if (tile.canvas.isConnected) return false;
    const area = this.tileArea(tile);
    const screen = this.screenArea();
    const [left, top, right, bottom] = [Math.max(area[0], screen[0]), Math.max(area[1], screen[1]),
      Math.min(area[2], screen[2]), Math.min(area[3], screen[3])];
    const covered = [...this.previous?.covered ?? []];
    for (const under of this.overview?.tiles.values() ?? []) {
      if (under.canvas.isConnected) covered.push(this.tileArea(under));
    }
    const points = [[left, top], [right, top], [left, bottom], [right, bottom], [(left + right) / 2, (top + bottom) / 2]];
    return !points.every(([x, y]) => covered.some((area) => area[0] <= x && x <= area[2] && area[1] <= y && y <= area[3]));
  }

  dropPrevious() {
    this.dropPlane(this.previous?.plane ?? null);
    this.previous = null;
  }

  /** A plane gone, its canvases (drawn, being drawn or never drawn) to
   * the pool. */
  dropPlane(plane) {
    if (!plane) return;
    for (const tile of [...plane.tiles.values()]) this.dropTile(tile);
    plane.element.remove();
  }

  /** The tiles of a plane (the view's unless told) covering the screen and
   * reaching `ring` tiles (a fraction of one allowed) beyond its edges,
   * made (dirty all over) where missing. */
  tilesOnScreen(ring, plane = this.main) {
    const { panX, panY, zoom, width, height } = this.view;
    const { scale } = plane;
    const toTiles = (screen, pan) => ((screen - pan) / zoom) * scale / TILE;
    const columns = [Math.floor(toTiles(0, panX) - ring), Math.floor(toTiles(width, panX) + ring)];
    const rows = [Math.floor(toTiles(0, panY) - ring), Math.floor(toTiles(height, panY) + ring)];
    const tiles = [];
    for (let row = rows[0]; row <= rows[1]; row++) {
      for (let column = columns[0]; column <= columns[1]; column++) {
        const key = `${column},${row}`;
        let tile = plane.tiles.get(key);
        if (!tile) {
          const canvas = this.takeCanvas(Math.round(TILE * (window.devicePixelRatio || 1)));
          canvas.style.cssText = `position:absolute;left:${column * TILE}px;top:${row * TILE}px;`
            + `width:${TILE}px;height:${TILE}px`;
          tile = { key, column, row, plane, canvas, dirty: null, job: null, shownAt: 0 };
          this.stats.made += 1;
          tile.dirty = [this.tileArea(tile)];
          plane.tiles.set(key, tile);
        }
        tiles.push(tile);
      }
    }
    return tiles;
  }

  /** A plane's tiles past those `needed` and `spare` more, least
   * recently shown first, dropped. */
  dropSpareTiles(plane, needed, spare) {
    if (plane.tiles.size <= needed.length + spare) return;
    const shown = new Set(needed);
    const unseen = [...plane.tiles.values()].filter((tile) => !shown.has(tile)).sort((a, b) => a.shownAt - b.shownAt);
    for (const tile of unseen.slice(0, plane.tiles.size - needed.length - spare)) this.dropTile(tile);
  }

  /** A tile gone from its plane, its canvas and any drawn aside to the pool. */
  dropTile(tile) {
    this.releaseJob(tile);
    this.releaseCanvas(tile.canvas);
    tile.plane.tiles.delete(tile.key);
  }

  /** A tile's mend under way given up, the canvas it drew aside on to the pool. */
  releaseJob(tile) {
    if (tile.job && tile.job.target !== tile.canvas) this.releaseCanvas(tile.job.target);
    tile.job = null;
  }

  /** A blank canvas `size` pixels square, from the pool when it has one. */
  takeCanvas(size) {
    // A canvas of another size (the pixel ratio changed) is never taken.
    this.pool = this.pool.filter((canvas) => canvas.width === size && canvas.height === size);
    const index = this.pool.length - 1;
    if (index < 0) return Object.assign(document.createElement('canvas'), { width: size, height: size });
    const [canvas] = this.pool.splice(index, 1);
    const context = canvas.getContext('2d');
    if (context) {
      context.save();
      context.setTransform(1, 0, 0, 1, 0, 0);
      context.clearRect(0, 0, size, size);
      context.restore();
      forgetContextState();
    }
    return canvas;
  }

  releaseCanvas(canvas) {
    canvas.remove();
    if (this.pool.length < POOLED_CANVASES && !this.pool.includes(canvas)) this.pool.push(canvas);
  }

  /**
   * Mends a tile: its dirty part cleared and drawn again. A small mend is
   * drawn in place at once; a big one aside, over as many frames as it
   * takes, then swapped in. True when the tile is done.
   */
  work(tile, budget) {
    const started = performance.now();
    if (!tile.job) {
      // A mend under way is finished first, whatever dirties the tile
      // meanwhile: started again, a big one would never end while bots
      // edit; what changed since is mended next.
      const areas = tile.dirty ?? [this.tileArea(tile)];
      tile.dirty = null;
      this.refreshRanks();
      const matrix = this.tileMatrix(tile);
      // Whole pixels: an edge between two would be drawn twice, half each
      // time; and everything those pixels may hold is drawn again.
      const [scale, , , , x, y] = matrix;
      const parts = areas.map((area) => [Math.floor(area[0] * scale + x), Math.floor(area[1] * scale + y),
        Math.ceil(area[2] * scale + x), Math.ceil(area[3] * scale + y)]);
      /** @type {Set<string>} */
      const found = new Set();
      for (const pixels of parts) {
        this.grid.query([(pixels[0] - x) / scale, (pixels[1] - y) / scale, (pixels[2] - x) / scale, (pixels[3] - y) / scale],
          found);
      }
      const ids = [...found].filter((id) => !this.lifted.has(id));
      ids.sort((a, b) => (this.ranks.get(a) ?? 0) - (this.ranks.get(b) ?? 0));
      const whole = this.tileArea(tile);
      const aside = ids.length > AT_ONCE || !tile.canvas.isConnected;
      const target = aside ? this.asideCanvas(tile, areas, whole) : tile.canvas;
      tile.job = { parts, ids, next: 0, target, matrix };
    }
    const job = tile.job;
    const context = /** @type {CanvasRenderingContext2D} */ (job.target.getContext('2d'));
    this.begin(context, job);
    const environment = this.environment(job.target);
    while (job.next < job.ids.length) {
      const drawing = this.drawings.get(job.ids[job.next++]);
      if (drawing) this.paint(context, drawing, environment, job.matrix, tile.plane.specks);
      this.stats.painted += 1;
      if ((job.next & 31) === 0 && performance.now() - started > budget && job.target !== tile.canvas) break;
    }
    context.restore();
    forgetContextState();
    if (job.next < job.ids.length) return false;
    if (job.target !== tile.canvas) {
      job.target.style.cssText = tile.canvas.style.cssText;
      tile.canvas.replaceWith(job.target);
      if (!job.target.isConnected) tile.plane.element.append(job.target);
      this.releaseCanvas(tile.canvas);
      tile.canvas = job.target;
    } else if (!tile.canvas.isConnected) {
      tile.plane.element.append(tile.canvas);
    }
    tile.job = null;
    this.stats.mends += 1;
    return tile.dirty === null;
  }

  /** A canvas to draw a tile's mend on aside: a copy of the tile outside
   * the areas being drawn. */
  asideCanvas(tile, areas, whole) {
    const canvas = this.takeCanvas(tile.canvas.width);
    const covers = areas.some((area) => area[0] <= whole[0] && area[1] <= whole[1] && area[2] >= whole[2]
      && area[3] >= whole[3]);
    if (!covers && tile.canvas.isConnected) canvas.getContext('2d')?.drawImage(tile.canvas, 0, 0);
    return canvas;
  }

  /** Document units to a tile's pixels. */
  tileMatrix(tile) {
    const ratio = tile.canvas.width / TILE;
    const scale = tile.plane.scale * ratio;
    return /** @type {[number, number, number, number, number, number]} */ (
      [scale, 0, 0, scale, -tile.column * TILE * ratio, -tile.row * TILE * ratio]);
  }

  /** Clips to the job's parts; on its first frame, clears them to the ground. */
  begin(context, job) {
    context.save();
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.beginPath();
    for (const [left, top, right, bottom] of job.parts) context.rect(left, top, right - left, bottom - top);
    context.clip();
    if (job.next === 0) {
      if (this.ground) context.fillStyle = this.ground;
      for (const [left, top, right, bottom] of job.parts) {
        if (this.ground) context.fillRect(left, top, right - left, bottom - top);
        else context.clearRect(left, top, right - left, bottom - top);
      }
      forgetContextState();
    }
  }

  /** Paints an entity whole, or as a speck when it is that small or
   * `specks` says all are. */
  paint(context, drawing, environment, matrix, specks = false) {
    drawing.across ??= across(drawing);
    if (specks || drawing.across * matrix[0] < SPECK_PIXELS) {
      if (drawing.speck === undefined) drawing.speck = this.speckOf(drawing, environment);
      if (drawing.speck) {
        this.stats.specks += 1;
        return paintSpeck(context, drawing.speck, drawing.bounds, matrix);
      }
    }
    this.compile(drawing);
    environment.area = paintArea(drawing.bounds, matrix);
    if (drawing.eraser) paintEraser(context, drawing.eraser, environment, matrix);
    else paintNode(context, drawing.node, { ...INITIAL_STYLE, fontFamily: environment.fontFamily }, environment, matrix);
  }

  /** An entity's speck, measured once for all those drawn alike; null
   * for images, and for erasers and what they erased (their masks cut what
   * is beneath), which are always drawn whole. */
  speckOf(drawing, environment) {
    if (drawing.svg.includes('<defs') || drawing.svg.includes('<image')) return null;
    const signature = speckSignature(drawing.svg);
    let speck = this.specks.get(signature);
    if (speck === undefined) {
      if (this.specks.size >= MOST_SPECKS) this.specks.clear();
      this.speckScratch ??= Object.assign(document.createElement('canvas'), { width: 16, height: 16 });
      const sample = { ...environment, area: undefined };
      speck = measureSpeck(this.speckScratch, this.compile(drawing).node, drawing.bounds, sample);
      this.specks.set(signature, speck);
      forgetContextState();
    }
    return speck;
  }

  environment(target) {
    return {
      definitions: this.definitions,
      image: (href) => this.sources.image(href),
      scratch: (index) => this.scratch(index, target),
      fontFamily: this.sources.fontFamily(),
      atlas: this.atlas,
      ground: this.ground,
    };
  }

  scratch(index, target) {
    let canvas = this.scratches[index];
    if (!canvas) this.scratches[index] = canvas = document.createElement('canvas');
    if (canvas.width !== target.width || canvas.height !== target.height) {
      canvas.width = target.width;
      canvas.height = target.height;
    }
    return canvas;
  }

  /** Whether the screen shows every tile drawn at the view's zoom, with
   * nothing left to mend. */
  isSettled() {
    const { zoom } = this.view;
    if (zoom !== this.scale || this.previous) return false;
    const onScreen = this.tilesOnScreen(0);
    return onScreen.every((tile) => !tile.dirty && !tile.job && tile.canvas.isConnected);
  }

  /** Everything dropped for good: the tiles, their planes and what they
   * drew; nothing is drawn after. */
  clear() {
    this.disposed = true;
    this.dropPlane(this.main);
    this.dropPrevious();
    this.dropPlane(this.overview);
    this.overview = null;
    this.pool = [];
    this.drawings.clear();
    this.grid = new PaintGrid();
    this.order = [];
    this.ranks.clear();
    this.definitions.clear();
    this.lifted = new Set();
    this.newcomers.clear();
  }

}

/**
 * @typedef {{ element: HTMLElement, scale: number, tiles: Map<string, Tile>, specks: boolean }} Plane
 */

/** A plane of tiles at `scale` (0: the view's zoom, once it is known), on
 * top of those in `container` or `beneath` them, drawing every entity as
 * a speck when told. @returns {Plane} */
function newPlane(container, scale, { beneath = false, specks = false } = {}) {
  const element = document.createElement('div');
  element.className = 'tile-plane';
  if (beneath) container.prepend(element); else container.append(element);
  return { element, scale, tiles: new Map(), specks };
}

/** How big an entity is, in document units, for its level of detail: a
 * text's letters (unreadable once that low, however long its lines; its
 * paint bounds are generous), anything else's paint bounds' longer side. */
function across(drawing) {
  const [minX, minY, maxX, maxY] = drawing.bounds;
  if (!drawing.svg.startsWith('<g class="text"')) return Math.max(maxX - minX, maxY - minY);
  const fontSize = Number(/font-size="([\d.]+)"/.exec(drawing.svg)?.[1]);
  const scale = Number(/^<g [^>]*transform="[^"]*scale\(([\d.]+)/.exec(drawing.svg)?.[1] ?? 1);
  return Number.isFinite(fontSize) && Number.isFinite(scale) ? fontSize * scale : maxY - minY;
}

/** `parts` with `part` added: joined to every part it meets, and to the
 * part it grows least when there would be too many. */
function addPart(parts, part) {
  let joined = part;
  const apart = [];
  for (const other of parts) {
    if (meets(other, joined)) joined = union(other, joined); else apart.push(other);
  }
  if (apart.length < MOST_DIRTY_PARTS) {
    apart.push(joined);
    return apart;
  }
  let nearest = 0;
  let least = Infinity;
  apart.forEach((other, index) => {
    const growth = area(union(other, joined)) - area(other);
    if (growth < least) { least = growth; nearest = index; }
  });
  apart[nearest] = union(apart[nearest], joined);
  return apart;
}

function area(rect) {
  return (rect[2] - rect[0]) * (rect[3] - rect[1]);
}

function union(a, b) {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}
