// The canvas on the page, patched per changed entity from the module's
// renderer: the page draws nothing itself. A few thousand entities near
// the screen are SVG elements; past that, the tiles draw those not
// changing (Docs/web.md, "A renderer for big boards") and the SVG keeps
// only the entities being moved, selected or typed into.
import { placeInLines, scalarsBefore, utf16Offset } from './text-positions.mjs';
import { TiledLayer } from './tiles.mjs';

const SVG = 'http://www.w3.org/2000/svg';
/** Tiles take over past this many entities drawn, and give back below the
 * second: between the two, whichever draws now stays. */
export const TILES_FROM = 2500;
export const TILES_UNTIL = 1500;
/** An entity drawn anew this many times, each within CHANGING_GAP_MS of the
 * last, is changing (a live stroke, a text a peer types): it leaves the
 * tiles until it has not changed for CHANGING_SETTLE_MS. */
export const CHANGING_DRAWS = 3;
export const CHANGING_GAP_MS = 250;
export const CHANGING_SETTLE_MS = 500;
/** Over the tiles, this many entities or more moved by one shift are moved
 * as one layer: one CSS transform the compositor applies, where a
 * transform per element cost style, layout, paint and raster every frame
 * (11.5 ms of the main thread's 17 a frame, dragging 100 zoomed out). */
export const MOVING_LAYER_FROM = 8;
/** A preview transform: a translation, then the rest. */
const TRANSLATED = /^translate\(([^ ,)]+)[ ,]+([^ ,)]+)\)(.*)$/s;

export class CanvasView {
  /** `images` (an ImageStore) gives images their bytes. */
  constructor(svg, images = null) {
    this.svg = svg;
    this.images = images;
    this.viewport = svg.querySelector('#viewport');
    this.layer = svg.querySelector('#entities');
    this.backgroundLayer = svg.querySelector('#background');
    this.peerStrokes = svg.querySelector('#peer-strokes');
    /** A peer's replica → the SVG of its stroke in progress, as drawn. */
    this.strokesShown = new Map();
    this.elements = new Map();
    /** Entities a gesture in flight shows elsewhere: their drawn transform. */
    this.previewed = new Map();
    /** Entities shown selected: ID → the element that carries the mark. */
    this.marked = new Map();
    /** The glyphs of a text being typed into here, when `id` is that text
     * (set by the page's text editing). @type {(id: string) => any} */
    this.typedGlyphs = (_id) => null;
    /** What the text editor shows, so peers' carets follow it. @type {() => string} */
    this.typedState = () => '';
    /** Entities hidden while their text is typed into in place. */
    this.hidden = new Set();
    this.parser = new DOMParser();
    /** Every entity drawn: ID → its paint bounds and its SVG. */
    this.fragments = new Map();
    /** The tiles, while they draw (null: every entity is an SVG element).
     * @type {TiledLayer | null} */
    this.tiled = null;
    /** Tiles draw past this many entities and stop below the second. */
    this.tilesFrom = TILES_FROM;
    this.tilesUntil = TILES_UNTIL;
    /** Entities drawn anew lately: ID → how many times in a row, quickly,
     * and when last. */
    this.recentDraws = new Map();
    this.recentDrawsPrunedAt = 0;
    /** Those drawn anew CHANGING_DRAWS times in a row, quickly. */
    this.changing = new Set();
    /** What the SVG shows while tiles draw the rest: ID → why (a set of
     * reasons: 'moving', 'typing', 'caret', 'changing'). A selection alone stays in the
     * tiles (its box and handles show it; the glow that tells which
     * entities of several it holds is the SVG's, so tiles go without):
     * every element here is painted again at every pan. */
    this.promoted = new Map();
    this.backgroundColor = '';
    this.size = { width: 0, height: 0 };
    this.viewportValue = [0, 0, 1];
    /** blob hex → an <img> of its bytes, for the tiles. */
    this.tileImages = new Map();
    /** Where tiles draw: the tiles' holder, and beneath it the background
     * (its colour, and its image in a viewport of its own). Made when
     * tiles first draw. @type {HTMLElement | null} */
    this.tileHolder = null;
    /** @type {SVGSVGElement | null} */
    this.backdrop = null;
    /** @type {SVGGElement | null} */
    this.backdropViewport = null;
    /** Called once tiles on screen are all drawn. @type {(() => void) | null} */
    this.onTilesComplete = null;
  }

  /** The canvas's size in CSS pixels. */
  setSize(width, height) {
    this.size = { width, height };
    this.tiled?.setView(...this.viewportValue, width, height);
  }

  /** Hides an entity's drawing (a text typed into in place), and keeps it
   * hidden when it is drawn anew. */
  hide(id, hidden) {
    if (hidden) this.hidden.add(id); else this.hidden.delete(id);
    this.promote(id, 'typing', hidden);
    this.elements.get(id)?.classList.toggle('editing', hidden);
  }

  /** Applies `Session.render()`'s changes; `now` in milliseconds;
   * `waiting`, the entities around the screen still to come
   * (`Session.waiting`), counts towards the choice of tiles. */
  apply(changes, now = performance.now(), waiting = 0) {
    // A render that brings the tiles (a welcome, a zoom out) goes to them
    // straight away: made into elements first, its thousands of fragments
    // would each be parsed for nothing.
    if (!this.tiled) {
      let arriving = 0;
      for (const change of changes) {
        if (change.draw !== undefined && !this.fragments.has(change.draw)) arriving += 1;
        else if (change.remove !== undefined && this.fragments.has(change.remove)) arriving -= 1;
      }
      if (this.fragments.size + arriving + waiting > this.tilesFrom) this.startTiles();
    }
    for (const change of changes) {
      if (change.background !== undefined) {
        this.backgroundColor = change.background ?? '';
        const element = change.svg ? this.parse(change.svg) : null;
        this.backgroundLayer.replaceChildren(...(element ? [element] : []));
        this.paintBackgroundColor();
      } else if (change.draw !== undefined) {
        this.fragments.set(change.draw, { bounds: change.bounds, svg: change.svg });
        if (this.tiled) {
          this.tiled.setDrawing(change.draw, change.bounds, change.svg);
          this.noteDrawn(change.draw, now);
          if (!this.promoted.has(change.draw)) continue;
        }
        const element = this.parse(change.svg);
        if (!element) continue;
        const old = this.elements.get(change.draw);
        if (this.hidden.has(change.draw)) element.classList.add('editing');
        if (old) old.replaceWith(element); else this.layer.append(element);
        this.elements.set(change.draw, element);
        if (!old && this.tiled) this.placeElement(change.draw);
        this.previewed.delete(change.draw);
      } else if (change.remove !== undefined) {
        this.fragments.delete(change.remove);
        this.tiled?.remove(change.remove);
        this.elements.get(change.remove)?.remove();
        this.elements.delete(change.remove);
        this.previewed.delete(change.remove);
      } else if (change.place !== undefined) {
        if (this.tiled) {
          this.tiled.place(change.place, change.above);
          this.placeElement(change.place);
          continue;
        }
        const element = this.elements.get(change.place);
        const above = change.above === null ? null : this.elements.get(change.above);
        if (element && above !== element) this.layer.insertBefore(element, above ?? null);
      } else if (change.order) {
        this.tiled?.setOrder(change.order);
        // Moves only the elements out of place: a new entity on top, drawn
        // at the end already, moves nothing among thousands.
        let next = this.layer.firstElementChild;
        for (const id of change.order) {
          const element = this.elements.get(id);
          if (!element) continue;
          if (element === next) next = next.nextElementSibling;
          else this.layer.insertBefore(element, next);
        }
      }
    }
    this.chooseRenderer(waiting);
    if (this.tiled) this.promoteChanging(now);
  }

  // MARK: Tiles

  noteDrawn(id, now) {
    const recent = this.recentDraws.get(id);
    const quick = recent !== undefined && now - recent.at <= CHANGING_GAP_MS;
    const count = quick ? recent.count + 1 : 1;
    this.recentDraws.set(id, { count, at: now });
    if (count >= CHANGING_DRAWS) this.changing.add(id);
  }

  /** What is changing leaves the tiles, whose mends would otherwise
   * repaint all beneath it at every change; what settled goes back. Only
   * the few changing are looked at each frame; the rest of what was
   * drawn lately (a welcome's thousands) is forgotten every half second. */
  promoteChanging(now) {
    if (now - this.recentDrawsPrunedAt > CHANGING_SETTLE_MS) {
      this.recentDrawsPrunedAt = now;
      for (const [id, { at }] of this.recentDraws) if (now - at > CHANGING_SETTLE_MS) this.recentDraws.delete(id);
    }
    for (const id of this.changing) {
      const recent = this.recentDraws.get(id);
      if (!recent || now - recent.at > CHANGING_SETTLE_MS || !this.fragments.has(id)) this.changing.delete(id);
    }
    // Nothing is done when the set is what is shown already.
    this.promoteOnly(this.changing, 'changing');
  }

  /** Tiles past TILES_FROM entities, SVG elements below TILES_UNTIL. */
  chooseRenderer(waiting = 0) {
    const count = this.fragments.size + waiting;
    if (!this.tiled && count > this.tilesFrom) this.startTiles();
    else if (this.tiled && count < this.tilesUntil) this.stopTiles();
  }

  startTiles() {
    const stage = this.svg.parentElement;
    this.tileHolder ??= Object.assign(document.createElement('div'), { id: 'tiles' });
    const backdrop = this.backdrop ??= document.createElementNS(SVG, 'svg');
    backdrop.id = 'backdrop';
    this.backdropViewport ??= backdrop.appendChild(document.createElementNS(SVG, 'g'));
    stage.insertBefore(backdrop, this.svg);
    stage.insertBefore(this.tileHolder, this.svg);
    // The background image goes beneath the tiles, the colour behind all.
    this.backdropViewport.append(this.backgroundLayer);
    this.setViewport(this.viewportValue);
    this.svg.classList.add('tiled');
    const fontFamily = getComputedStyle(this.svg).fontFamily;
    this.tiled = new TiledLayer(this.tileHolder, {
      image: (href) => this.tileImage(href),
      fontFamily: () => fontFamily,
    });
    this.tiled.onScreenComplete = () => this.onTilesComplete?.();
    const ranks = [...this.layer.children].map((element) => /** @type {HTMLElement} */ (element).dataset.id);
    for (const [id, { bounds, svg }] of this.fragments) this.tiled.setDrawing(id, bounds, svg);
    this.tiled.setOrder(ranks.filter((id) => id && this.fragments.has(id)));
    this.tiled.setLifted(new Set(this.promoted.keys()));
    for (const [id, element] of this.elements) {
      if (this.promoted.has(id)) continue;
      element.remove();
      this.elements.delete(id);
    }
    this.paintBackgroundColor();
    this.tiled.setView(...this.viewportValue, this.size.width, this.size.height);
  }

  stopTiles() {
    const tiled = this.tiled;
    if (!tiled) return;
    this.hideMovingLayer();
    tiled.refreshRanks();
    this.tiled = null;
    tiled.clear();
    this.tileHolder?.remove();
    this.backdrop?.remove();
    this.viewport.insertBefore(this.backgroundLayer, this.layer);
    this.svg.classList.remove('tiled');
    this.paintBackgroundColor();
    // Every entity an element again, in z-order.
    for (const id of tiled.order) {
      if (!id || this.elements.has(id)) continue;
      const fragment = this.fragments.get(id);
      const element = fragment && this.parse(fragment.svg);
      if (!element) continue;
      this.elements.set(id, element);
      this.layer.append(element);
    }
    const order = tiled.order.filter((id) => this.elements.has(id));
    this.apply([{ order }]);
  }

  paintBackgroundColor() {
    this.svg.style.backgroundColor = this.tiled ? '' : this.backgroundColor;
    if (this.backdrop) this.backdrop.style.backgroundColor = this.tiled ? this.backgroundColor || '#ffffff' : '';
    // Tiles filled with one opaque colour hide what lies beneath them; an
    // image or a see-through colour needs them clear.
    const color = this.backgroundColor || '#ffffffff';
    const opaque = /^#[0-9a-f]{6}(ff)?$/i.test(color) && this.backgroundLayer.childElementCount === 0;
    this.tiled?.setGround(opaque ? color.slice(0, 7) : null);
  }

  /**
   * Marks why an entity is drawn as an SVG element while tiles draw the
   * rest; with no reason left it goes back to the tiles.
   */
  promote(id, reason, on) {
    const ids = new Set([...this.promoted].filter(([, reasons]) => reasons.has(reason)).map(([key]) => key));
    if (on) ids.add(id); else ids.delete(id);
    this.promoteOnly(ids, reason);
  }

  /** Promotes exactly `ids` for `reason`: the tiles learn what is lifted
   * once, and new elements go in by rank in one pass. */
  promoteOnly(ids, reason) {
    const entered = [];
    const left = [];
    for (const [id, reasons] of this.promoted) {
      if (!reasons.has(reason) || ids.has(id)) continue;
      reasons.delete(reason);
      if (reasons.size === 0) left.push(id);
    }
    for (const id of left) this.promoted.delete(id);
    for (const id of ids) {
      let reasons = this.promoted.get(id);
      if (reasons?.has(reason)) continue;
      if (!reasons) this.promoted.set(id, (reasons = new Set()));
      reasons.add(reason);
      if (reasons.size === 1) entered.push(id);
    }
    if (!this.tiled || (entered.length === 0 && left.length === 0)) return;
    for (const id of left) {
      this.elements.get(id)?.remove();
      this.elements.delete(id);
      this.previewed.delete(id);
      this.marked.delete(id);
    }
    this.tiled.setLifted(new Set(this.promoted.keys()));
    for (const id of entered) {
      const fragment = this.fragments.get(id);
      const element = fragment && !this.elements.has(id) ? this.parse(fragment.svg) : null;
      if (!element) continue;
      if (this.hidden.has(id)) element.classList.add('editing');
      this.elements.set(id, element);
    }
    if (entered.length <= 16) {
      for (const id of entered) this.placeElement(id);
      return;
    }
    // Many at once (a big selection dragged): all of them in rank order.
    this.tiled.refreshRanks();
    const ranks = this.tiled.ranks;
    const placed = [...this.elements].sort(([a], [b]) => (ranks.get(a) ?? Infinity) - (ranks.get(b) ?? Infinity));
    for (const [, element] of placed) this.layer.append(element);
  }

  /** Puts a promoted element among the others in z-order. */
  placeElement(id) {
    const element = this.elements.get(id);
    if (!element || !this.tiled) return;
    this.tiled.refreshRanks();
    const rank = this.tiled.ranks.get(id) ?? Infinity;
    let above = null;
    for (const other of this.layer.children) {
      const otherRank = this.tiled.ranks.get(/** @type {HTMLElement} */ (other).dataset.id ?? '') ?? Infinity;
      if (other !== element && otherRank > rank) { above = other; break; }
    }
    if (element.nextSibling !== above || element.parentNode !== this.layer) this.layer.insertBefore(element, above);
  }

  /**
   * The kind (`emoji`, `text`, …) of the topmost entity the tiles draw
   * whose paint reaches a screen point, or null: their paint bounds, not
   * their ink, so a little generous.
   */
  kindAt(x, y) {
    if (!this.tiled) return null;
    const [panX, panY, zoom] = this.viewportValue;
    const at = [(x - panX) / zoom, (y - panY) / zoom];
    const tiled = this.tiled;
    tiled.refreshRanks();
    let top = null;
    for (const id of tiled.grid.query([at[0], at[1], at[0], at[1]])) {
      if (top === null || (tiled.ranks.get(id) ?? 0) > (tiled.ranks.get(top) ?? 0)) top = id;
    }
    const svg = top === null ? null : this.fragments.get(top)?.svg;
    return svg ? /class="(\w+)/.exec(svg)?.[1] ?? null : null;
  }

  /** An image of a blob for the tiles, once its bytes are at hand. */
  tileImage(href) {
    const match = /^blobs\/([0-9a-f]{64})$/.exec(href);
    if (!match || !this.images) return null;
    const hex = match[1];
    const shown = this.tileImages.get(hex);
    if (shown) return shown.complete && shown.naturalWidth > 0 ? shown : null;
    const url = this.images.urls.get(hex);
    if (!url) {
      this.images.load(hex);
      return null;
    }
    const image = new Image();
    image.onload = () => this.tiled?.imageArrived(href);
    image.src = url;
    this.tileImages.set(hex, image);
    return null;
  }

  /** A fragment from the renderer as an element of this document. Parsed as
   * XML, never as HTML: nothing in it runs. */
  parse(fragment) {
    const parsed = this.parser.parseFromString(`<svg xmlns="${SVG}">${fragment}</svg>`, 'image/svg+xml');
    const element = parsed.documentElement.firstElementChild;
    if (!element) return null;
    // Before the import: a parsed document loads nothing, the page would.
    if (this.images) for (const image of element.querySelectorAll('image')) this.images.adopt(image);
    return document.importNode(element, true);
  }

  /** The images of a blob whose bytes just came: they show them. */
  showImage(hex, url) {
    for (const image of this.viewport.querySelectorAll(`image[data-blob="${hex}"]`)) image.setAttribute('href', url);
    if (this.tiled && !this.tileImages.has(hex)) this.tileImage(`blobs/${hex}`);
  }

  /** Whether an image of the blob (an entity or the background) is on the page. */
  showsImage(hex) {
    if (this.viewport.querySelector(`image[data-blob="${hex}"]`) !== null) return true;
    if (!this.tiled) return false;
    for (const { svg } of this.fragments.values()) if (svg.includes(hex)) return true;
    return false;
  }

  /** Shows gestures in flight (`Session.preview()`): moves their entities by
   * transform alone (over the tiles, the most moved by one shift as one
   * layer), putting back those no gesture moves any more, and shows peers'
   * strokes in progress. */
  preview({ transforms, strokes }) {
    this.previewStrokes(strokes);
    this.promoteOnly(new Set(transforms.keys()), 'moving');
    const layered = this.tiled ? this.sharedShift(transforms) : null;
    for (const [id, drawn] of this.previewed) {
      if (!transforms.has(id) || layered?.ids.has(id)) {
        movable(this.elements.get(id))?.setAttribute('transform', drawn);
        this.previewed.delete(id);
      }
    }
    if (layered) this.showMovingLayer(layered.ids, layered.shift); else this.hideMovingLayer();
    for (const [id, transform] of transforms) {
      if (layered?.ids.has(id)) continue;
      const element = movable(this.elements.get(id));
      if (!element) continue;
      if (!this.previewed.has(id)) this.previewed.set(id, element.getAttribute('transform'));
      element.setAttribute('transform', transform);
    }
  }

  /**
   * The most previewed entities drawn at one shift, [dx, dy] in document
   * units, from where they are, when they are MOVING_LAYER_FROM or more:
   * this page's drag, while peers' gestures move others by other shifts.
   * Only an entity that is its own element carrying its transform counts
   * (not an eraser's ink beneath its mask).
   * @param {Map<string, string>} transforms
   * @returns {{ shift: [number, number], ids: Set<string> } | null}
   */
  sharedShift(transforms) {
    if (transforms.size < MOVING_LAYER_FROM) return null;
    /** @type {Map<string, { shift: [number, number], ids: Set<string> }>} */
    const groups = new Map();
    for (const [id, transform] of transforms) {
      const element = this.elements.get(id);
      if (!element?.hasAttribute('transform')) continue;
      const to = TRANSLATED.exec(transform);
      const from = TRANSLATED.exec(this.previewed.get(id) ?? element.getAttribute('transform') ?? '');
      if (!to || !from || to[3] !== from[3]) continue;
      const dx = Number(to[1]) - Number(from[1]);
      const dy = Number(to[2]) - Number(from[2]);
      if (!Number.isFinite(dx) || !Number.isFinite(dy)) continue;
      // Printed float32s: one shift may differ in its last digits.
      const key = `${Math.round(dx * 100)} ${Math.round(dy * 100)}`;
      const group = groups.get(key);
      if (group) group.ids.add(id); else groups.set(key, { shift: [dx, dy], ids: new Set([id]) });
    }
    let largest = null;
    for (const group of groups.values()) if (!largest || group.ids.size > largest.ids.size) largest = group;
    return largest && largest.ids.size >= MOVING_LAYER_FROM ? largest : null;
  }

  /** Moves the elements of `ids` into the moving layer, in z-order, and
   * the layer by `shift`. @param {Set<string>} ids @param {[number, number]} shift */
  showMovingLayer(ids, [dx, dy]) {
    if (!this.movingLayer) {
      this.movingLayer = document.createElementNS(SVG, 'svg');
      this.movingLayer.id = 'moving';
      this.movingViewport = this.movingLayer.appendChild(document.createElementNS(SVG, 'g'));
      this.movingViewport.setAttribute('transform', this.viewport.getAttribute('transform') ?? '');
    }
    // Beneath the SVG: the selection's handles and peers' cursors stay on
    // top, over the tiles.
    if (!this.movingLayer.isConnected) this.svg.before(this.movingLayer);
    const inLayer = this.movingViewport.children;
    let changed = inLayer.length !== ids.size;
    for (const element of inLayer) if (!ids.has(/** @type {HTMLElement} */ (element).dataset.id ?? '')) changed = true;
    if (changed) {
      for (const element of [...inLayer]) this.putBack(element);
      this.tiled?.refreshRanks();
      const ranks = this.tiled?.ranks ?? new Map();
      const ordered = [...ids].sort((a, b) => (ranks.get(a) ?? Infinity) - (ranks.get(b) ?? Infinity));
      for (const id of ordered) {
        const element = this.elements.get(id);
        if (element) this.movingViewport.append(element);
      }
    }
    this.movingShift = [dx, dy];
    this.placeMovingLayer();
  }

  /** The layer's shift on the screen, at the view's zoom. */
  placeMovingLayer() {
    if (!this.movingLayer?.isConnected) return;
    const [dx, dy] = this.movingShift;
    const zoom = this.viewportValue[2];
    this.movingLayer.style.transform = `translate(${dx * zoom}px, ${dy * zoom}px)`;
  }

  /** Puts the moving layer's elements back among the others. */
  hideMovingLayer() {
    if (!this.movingLayer?.isConnected) return;
    for (const element of [...this.movingViewport.children]) this.putBack(element);
    this.movingLayer.remove();
    this.movingLayer.style.transform = '';
  }

  putBack(element) {
    const id = /** @type {HTMLElement} */ (element).dataset.id ?? '';
    if (this.elements.get(id) !== element) return element.remove();
    this.layer.append(element);
    this.placeElement(id);
  }

  /** Peers' strokes in progress, re-parsed only when one changed. */
  previewStrokes(strokes) {
    for (const [replica, shown] of this.strokesShown) {
      if (!strokes.has(replica)) {
        shown.element?.remove();
        this.strokesShown.delete(replica);
      }
    }
    for (const [replica, svg] of strokes) {
      const shown = this.strokesShown.get(replica);
      if (shown?.svg === svg) continue;
      const element = this.parse(svg);
      if (!element) continue;
      element.setAttribute('data-replica', replica);
      if (shown?.element) shown.element.replaceWith(element); else this.peerStrokes.append(element);
      this.strokesShown.set(replica, { svg, element });
    }
  }

  /** @param {number[]} viewport [panX, panY, zoom] */
  setViewport([panX, panY, zoom]) {
    this.viewportValue = [panX, panY, zoom];
    const transform = `translate(${panX} ${panY}) scale(${zoom})`;
    setAttributeIfChanged(this.viewport, 'transform', transform);
    if (this.movingViewport) setAttributeIfChanged(this.movingViewport, 'transform', transform);
    this.placeMovingLayer();
    if (this.backdropViewport) setAttributeIfChanged(this.backdropViewport, 'transform', transform);
    this.tiled?.setView(panX, panY, zoom, this.size.width, this.size.height);
  }

  /**
   * Other people's cursors (a disc with their initials, in their colour)
   * and what they selected (one dashed box, following their gesture), over
   * everything; the module gives both on the screen.
   * @param {any[]} peers
   */
  setPeers(peers) {
    this.promoteOnly(new Set(peers.filter((peer) => peer.caret).map((peer) => peer.caret.text)), 'caret');
    // Rebuilt only when something shown changed: a caret moves with its
    // text's drawing and the view, too.
    const texts = peers.map((peer) => (peer.caret ? this.elements.get(peer.caret.text) : null));
    const shown = JSON.stringify(peers) + this.viewport.getAttribute('transform') + this.typedState();
    if (shown === this.peersShown && texts.every((text, index) => text === this.caretTexts?.[index])) return;
    this.peersShown = shown;
    this.caretTexts = texts;
    const layer = this.svg.querySelector('#peers');
    layer.replaceChildren();
    for (const peer of peers) {
      if (peer.caret) this.showCaret(layer, peer);
      if (peer.frame) {
        const { x, y, width, height, rotation } = peer.frame;
        layer.append(element('rect', {
          class: 'peer-selection', x: -width / 2 - 3, y: -height / 2 - 3,
          width: width + 6, height: height + 6, fill: 'none', stroke: peer.color,
          transform: `translate(${x} ${y}) rotate(${(rotation * 180) / Math.PI})`,
          'stroke-width': 2, 'stroke-dasharray': '5 3', 'data-replica': peer.replica,
        }));
      }
      if (!peer.cursor) continue;
      const { x, y } = peer.cursor;
      const cursor = element('g', {
        class: 'peer-cursor', transform: `translate(${x} ${y})`, 'data-replica': peer.replica,
        opacity: peer.idle ? 0.4 : 1,
      });
      cursor.append(element('path', { d: 'M0 0 L0 14 L4 10 L9 10 Z', fill: peer.color, stroke: '#ffffff' }));
      cursor.append(element('circle', { cx: 18, cy: 20, r: 11, fill: peer.color }));
      const label = element('text', {
        x: 18, y: 20, 'text-anchor': 'middle', 'dominant-baseline': 'central', fill: '#ffffff',
        'font-size': 10, 'font-family': 'system-ui, sans-serif',
      });
      label.textContent = peer.initials;
      const title = element('title', {});
      title.textContent = peer.name;
      cursor.append(label, title);
      layer.append(cursor);
    }
  }

  /**
   * A peer's caret in a text, in their colour: a bar where they type and
   * their selected characters shaded, placed on the glyphs this person
   * sees: the editor's while they type in that text themselves
   * (`typedGlyphs`), else the drawing's; turned and scaled with the text.
   */
  showCaret(layer, peer) {
    const glyphs = this.typedGlyphs(peer.caret.text)
      ?? drawnGlyphs(this.elements.get(peer.caret.text)?.querySelector('text'));
    const screen = glyphs?.toScreen();
    const layerToScreen = layer.getScreenCTM();
    // As DOMMatrix both: an SVGMatrix multiplies only another SVGMatrix.
    const toLayer = screen && layerToScreen
      && DOMMatrix.fromMatrix(layerToScreen).inverse().multiply(DOMMatrix.fromMatrix(screen));
    if (!glyphs || !toLayer) return;
    const { size } = glyphs;
    const { a, b, c, d, e, f } = toLayer;
    const mark = element('g', {
      class: 'peer-caret', 'data-replica': peer.replica, transform: `matrix(${a} ${b} ${c} ${d} ${e} ${f})`,
    });
    const { anchor, head } = peer.caret;
    const [from, to] = [Math.min(anchor, head), Math.max(anchor, head)].map((at) => glyphs.place(at));
    for (let line = from.line; line <= to.line && anchor !== head; line += 1) {
      const start = line === from.line ? from.x : glyphs.lineEdge(line, 'start');
      const end = line === to.line ? to.x : glyphs.lineEdge(line, 'end');
      if (end <= start) continue;
      mark.append(element('rect', {
        class: 'peer-text-selection', x: start, y: glyphs.lineTop(line),
        width: end - start, height: size * 1.1, fill: peer.color, 'fill-opacity': 0.25,
      }));
    }
    const at = glyphs.place(head);
    const top = glyphs.lineTop(at.line);
    mark.append(element('line', {
      class: 'peer-caret-bar', x1: at.x, y1: top, x2: at.x, y2: top + size * 1.1, stroke: peer.color,
      'stroke-width': 2, 'vector-effect': 'non-scaling-stroke',
    }));
    mark.append(element('rect', {
      x: at.x - size * 0.08, y: top - size * 0.16, width: size * 0.16, height: size * 0.16, fill: peer.color,
    }));
    const title = element('title', {});
    title.textContent = peer.name;
    mark.append(title);
    layer.append(mark);
  }

  /** Marks the selected entities; touches only those whose mark changes,
   * and those drawn anew since (a new element comes without the mark). */
  setSelection(ids) {
    const selected = new Set(ids);
    for (const [id, element] of this.marked) {
      if (!selected.has(id) || this.elements.get(id) !== element) {
        element.classList.remove('selected');
        this.marked.delete(id);
      }
    }
    for (const id of selected) {
      const element = this.elements.get(id);
      if (!element || this.marked.get(id) === element) continue;
      element.classList.add('selected');
      this.marked.set(id, element);
    }
  }
}

/**
 * A drawn text's glyphs, as a peer's caret is placed on them: in the
 * text's own units, lines being its `<tspan>`s. Null when nothing is drawn.
 */
function drawnGlyphs(text) {
  const lines = text ? [...text.querySelectorAll('tspan')] : [];
  if (lines.length === 0) return null;
  const size = Number(text.getAttribute('font-size')) || 16;
  return {
    size,
    toScreen: () => text.getScreenCTM(),
    place: (scalars) => placeInText(text, lines, scalars),
    lineEdge: (line, side) => lineEdge(lines[line], side),
    lineTop: (line) => linesTop(lines[line], size),
  };
}

/**
 * Where the place after `scalars` characters of a drawn text is: its line
 * and x in the text's own units (lines are `<tspan>`s, the characters
 * between them newlines).
 */
function placeInText(text, lines, scalars) {
  const contents = lines.map((line) => line.textContent ?? '');
  const { line, offset } = placeInLines(contents, scalars);
  // The drawing's characters run on across lines, newlines left out.
  const before = contents.slice(0, line).reduce((sum, content) => sum + content.length, 0);
  return { line, x: characterEdge(text, lines[line], before, contents[line], offset) };
}

/** The x of the place `offset` (UTF-16) into a line whose characters
 * start at `before` among the text's. */
function characterEdge(text, line, before, content, offset) {
  try {
    if (content.length === 0) return lineEdge(line, 'start');
    if (offset === 0) return text.getStartPositionOfChar(before).x;
    // The last character before the place, by where its scalar starts.
    const last = utf16Offset(content, scalarsBefore(content, offset) - 1);
    return text.getEndPositionOfChar(before + last).x;
  } catch {
    return lineEdge(line, 'start');
  }
}

/** A line's left or right end, in the text's units. */
function lineEdge(line, side) {
  try {
    const box = line.getBBox();
    if (box.width > 0) return side === 'start' ? box.x : box.x + box.width;
  } catch { /* not laid out */ }
  return Number(line.getAttribute('x')) || 0;
}

/** The top of a line's letters: its baseline sits 0.8 em below it. */
function linesTop(line, size) {
  return Number(line.getAttribute('y')) - size * 0.8 - size * 0.05;
}

/** Setting an attribute, even to the value it has, makes Chromium lay out
 * the SVG again: with 10,000 entities that alone costs frames. */
export function setAttributeIfChanged(target, name, value) {
  if (target.getAttribute(name) !== value) target.setAttribute(name, value);
}

export function setTextIfChanged(target, text) {
  if (target.textContent !== text) target.textContent = text;
}

/** An SVG element with these attributes. */
export function element(name, attributes) {
  const created = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) created.setAttribute(key, String(value));
  return created;
}

/** The element that carries an entity's transform: its group, or beneath an
 * eraser the drawing inside the masked group (an eraser's own ink). */
function movable(element) {
  if (!element) return null;
  return element.hasAttribute('transform') ? element : element.querySelector('[transform]');
}
