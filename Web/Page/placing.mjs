// Where a new item goes when it is placed at the middle of the view: there,
// or a step down and to the right of an item already centred there, so new
// items never pile up exactly on one another. No DOM and no imports.

/** The step between items placed one after another, in screen pixels. */
export const STEP = 24;
/** How close to an item's centre counts as the same spot, in screen pixels. */
export const SAME_SPOT = 4;
/** After this many steps the next item goes back to the middle. */
export const STEPS = 10;

/**
 * The first of `start`, `start` + one step, + two steps… that no item in
 * `taken` (screen points: the centres of the items on screen) sits on.
 * @param {{ x: number, y: number }} start
 * @param {{ x: number, y: number }[]} taken
 */
export function freeSpot(start, taken) {
  for (let step = 0; step < STEPS; step++) {
    const spot = { x: start.x + step * STEP, y: start.y + step * STEP };
    if (!taken.some((point) => Math.hypot(point.x - spot.x, point.y - spot.y) <= SAME_SPOT)) return spot;
  }
  return start;
}

/**
 * An entity group's position from its transform attribute (the renderer
 * writes `translate(x y)` first), on the screen: null without one.
 * @param {string | null} transform
 * @param {number[]} viewport [panX, panY, zoom]
 */
export function screenPosition(transform, [panX, panY, zoom]) {
  const match = /^translate\(([-\d.e]+)[ ,]([-\d.e]+)\)/.exec(transform ?? '');
  if (!match) return null;
  return { x: Number(match[1]) * zoom + panX, y: Number(match[2]) * zoom + panY };
}
