// Which entities' paint may reach a part of the document: a uniform grid
// of square cells in document units, each listing the entities whose paint
// bounds touch it. An entity too big for the grid (it would sit in more
// than `LARGE_CELLS` cells) is kept in one list every query looks at.

export const CELL = 256;
const LARGE_CELLS = 256;

export class PaintGrid {
  constructor() {
    /** Cell key → IDs whose bounds touch the cell. @type {Map<string, Set<string>>} */
    this.cells = new Map();
    /** IDs too large for cells. @type {Set<string>} */
    this.large = new Set();
    /** ID → the bounds it was filed under, [minX, minY, maxX, maxY]. @type {Map<string, number[]>} */
    this.bounds = new Map();
  }

  /** Files an entity under its bounds (again, if it moved). */
  set(id, bounds) {
    this.delete(id);
    this.bounds.set(id, bounds);
    const range = cellRange(bounds);
    if (!range) return;
    const [x0, y0, x1, y1] = range;
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > LARGE_CELLS) {
      this.large.add(id);
      return;
    }
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const key = `${x},${y}`;
        let cell = this.cells.get(key);
        if (!cell) this.cells.set(key, (cell = new Set()));
        cell.add(id);
      }
    }
  }

  delete(id) {
    const bounds = this.bounds.get(id);
    if (!bounds) return;
    this.bounds.delete(id);
    if (this.large.delete(id)) return;
    const range = cellRange(bounds);
    if (!range) return;
    const [x0, y0, x1, y1] = range;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const key = `${x},${y}`;
        const cell = this.cells.get(key);
        if (!cell) continue;
        cell.delete(id);
        if (cell.size === 0) this.cells.delete(key);
      }
    }
  }

  /** The IDs whose bounds meet `rect` ([minX, minY, maxX, maxY]), unordered,
   * added to `found`. */
  query(rect, found = /** @type {Set<string>} */ (new Set())) {
    for (const id of this.large) if (meets(this.bounds.get(id), rect)) found.add(id);
    const range = cellRange(rect);
    if (!range) return found;
    const [x0, y0, x1, y1] = range;
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > this.cells.size) {
      // A query wider than the board: look at the cells there are.
      for (const [key, cell] of this.cells) {
        const [x, y] = key.split(',').map(Number);
        if (x < x0 || x > x1 || y < y0 || y > y1) continue;
        for (const id of cell) if (meets(this.bounds.get(id), rect)) found.add(id);
      }
      return found;
    }
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const cell = this.cells.get(`${x},${y}`);
        if (cell) for (const id of cell) if (!found.has(id) && meets(this.bounds.get(id), rect)) found.add(id);
      }
    }
    return found;
  }
}

/** Whether two boxes overlap (touching edges count). */
export function meets(a, b) {
  return !!a && a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

function cellRange(bounds) {
  if (!bounds.every(Number.isFinite) || bounds[2] < bounds[0] || bounds[3] < bounds[1]) return null;
  return [Math.floor(bounds[0] / CELL), Math.floor(bounds[1] / CELL), Math.floor(bounds[2] / CELL),
    Math.floor(bounds[3] / CELL)];
}
