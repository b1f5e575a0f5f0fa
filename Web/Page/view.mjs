// The SVG on the page, patched per changed entity from the module's
// renderer: the page draws nothing itself.

const SVG = 'http://www.w3.org/2000/svg';

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
    this.parser = new DOMParser();
  }

  /** Applies `Session.render()`'s changes. */
  apply(changes) {
    for (const change of changes) {
      if (change.background !== undefined) {
        this.svg.style.backgroundColor = change.background ?? '';
        const element = change.svg ? this.parse(change.svg) : null;
        this.backgroundLayer.replaceChildren(...(element ? [element] : []));
      } else if (change.draw !== undefined) {
        const element = this.parse(change.svg);
        if (!element) continue;
        const old = this.elements.get(change.draw);
        if (old) old.replaceWith(element); else this.layer.append(element);
        this.elements.set(change.draw, element);
        this.previewed.delete(change.draw);
      } else if (change.remove !== undefined) {
        this.elements.get(change.remove)?.remove();
        this.elements.delete(change.remove);
        this.previewed.delete(change.remove);
      } else if (change.place !== undefined) {
        const element = this.elements.get(change.place);
        const above = change.above === null ? null : this.elements.get(change.above);
        if (element && above !== element) this.layer.insertBefore(element, above ?? null);
      } else if (change.order) {
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
  }

  /** Whether an image of the blob (an entity or the background) is on the page. */
  showsImage(hex) {
    return this.viewport.querySelector(`image[data-blob="${hex}"]`) !== null;
  }

  /** Shows gestures in flight (`Session.preview()`): moves their entities by
   * transform alone, putting back those no gesture moves any more, and
   * shows peers' strokes in progress. */
  preview({ transforms, strokes }) {
    this.previewStrokes(strokes);
    for (const [id, drawn] of this.previewed) {
      if (!transforms.has(id)) {
        movable(this.elements.get(id))?.setAttribute('transform', drawn);
        this.previewed.delete(id);
      }
    }
    for (const [id, transform] of transforms) {
      const element = movable(this.elements.get(id));
      if (!element) continue;
      if (!this.previewed.has(id)) this.previewed.set(id, element.getAttribute('transform'));
      element.setAttribute('transform', transform);
    }
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
    setAttributeIfChanged(this.viewport, 'transform', `translate(${panX} ${panY}) scale(${zoom})`);
  }

  /**
   * Other people's cursors (a disc with their initials, in their colour)
   * and what they selected (one dashed box, following their gesture), over
   * everything; the module gives both on the screen.
   * @param {any[]} peers
   */
  setPeers(peers) {
    // Rebuilt only when something shown changed.
    const shown = JSON.stringify(peers);
    if (shown === this.peersShown) return;
    this.peersShown = shown;
    const layer = this.svg.querySelector('#peers');
    layer.replaceChildren();
    for (const peer of peers) {
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
