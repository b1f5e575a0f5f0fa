// The SVG on the page, patched per changed entity from the module's
// renderer: the page draws nothing itself.

const SVG = 'http://www.w3.org/2000/svg';

export class CanvasView {
  constructor(svg) {
    this.svg = svg;
    this.viewport = svg.querySelector('#viewport');
    this.layer = svg.querySelector('#entities');
    this.elements = new Map();
    /** Entities a gesture in flight shows elsewhere: their drawn transform. */
    this.previewed = new Map();
    this.parser = new DOMParser();
  }

  /** Applies `Session.render()`'s changes. */
  apply(changes) {
    for (const change of changes) {
      if (change.draw !== undefined) {
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
      } else if (change.order) {
        for (const id of change.order) {
          const element = this.elements.get(id);
          if (element) this.layer.append(element);
        }
      }
    }
  }

  /** A fragment from the renderer as an element of this document. Parsed as
   * XML, never as HTML: nothing in it runs. */
  parse(fragment) {
    const parsed = this.parser.parseFromString(`<svg xmlns="${SVG}">${fragment}</svg>`, 'image/svg+xml');
    const element = parsed.documentElement.firstElementChild;
    return element ? document.importNode(element, true) : null;
  }

  /** Moves the entities of the gesture in flight by transform alone; puts
   * back those it no longer moves. `transforms` maps an ID to a transform. */
  preview(transforms) {
    for (const [id, drawn] of this.previewed) {
      if (!transforms.has(id)) {
        this.elements.get(id)?.setAttribute('transform', drawn);
        this.previewed.delete(id);
      }
    }
    for (const [id, transform] of transforms) {
      const element = this.elements.get(id);
      if (!element) continue;
      if (!this.previewed.has(id)) this.previewed.set(id, element.getAttribute('transform'));
      element.setAttribute('transform', transform);
    }
  }

  setViewport([panX, panY, zoom]) {
    this.viewport.setAttribute('transform', `translate(${panX} ${panY}) scale(${zoom})`);
  }

  setSelection(ids) {
    const selected = new Set(ids);
    for (const [id, element] of this.elements) element.classList.toggle('selected', selected.has(id));
  }
}
