// The selection's box and its handles: eight that scale and one that turns.
// A handle drag is a pinch or a rotation gesture of the editor, the same
// reducers two fingers use, so peers see it live as they see a pinch. The
// model keeps one scale per entity, so every handle keeps the ratio; Shift
// on the turning handle snaps to 15° steps. The module gives the frame on
// the screen; the geometry of handles on it is tested in Node.

import { element } from './view.mjs';

/** Where each scaling handle sits on the frame, in half-sizes from its centre. */
export const HANDLES = Object.freeze([
  { name: 'nw', u: -1, v: -1 }, { name: 'n', u: 0, v: -1 }, { name: 'ne', u: 1, v: -1 }, { name: 'e', u: 1, v: 0 },
  { name: 'se', u: 1, v: 1 }, { name: 's', u: 0, v: 1 }, { name: 'sw', u: -1, v: 1 }, { name: 'w', u: -1, v: 0 },
]);

/** How far above the frame the turning handle sits, in screen pixels. */
export const ROTATE_OFFSET = 28;
/** Below this size on screen (pixels) a frame shows its corners only. */
export const SIDES_MIN = 40;
/** The smallest factor one handle drag scales by: a box never turns inside out. */
export const MIN_FACTOR = 0.02;
/** Shift + the turning handle: the rotation goes in steps of this (radians). */
export const SNAP = Math.PI / 12;

/** A point of the frame's own axes (u, v in half-sizes, plus `lift` pixels up) on the screen. */
function onFrame(frame, u, v, lift = 0) {
  const lx = (u * frame.width) / 2;
  const ly = (v * frame.height) / 2 - lift;
  const cos = Math.cos(frame.rotation);
  const sin = Math.sin(frame.rotation);
  return { x: frame.x + lx * cos - ly * sin, y: frame.y + lx * sin + ly * cos };
}

/** The handles to show on a screen frame, each { name, x, y }: sides only when it is big enough. */
export function handlePoints(frame) {
  const big = Math.min(frame.width, frame.height) >= SIDES_MIN;
  return [
    ...HANDLES.filter((handle) => big || (handle.u !== 0 && handle.v !== 0))
      .map((handle) => ({ name: handle.name, ...onFrame(frame, handle.u, handle.v) })),
    { name: 'rotate', ...onFrame(frame, 0, -1, ROTATE_OFFSET) },
  ];
}

/**
 * The factor a drag of a scaling handle from `start` to `point` asks for,
 * about the frame's centre: a corner by distance, a side along its axis.
 */
export function scaleFor(name, frame, start, point) {
  const handle = HANDLES.find((found) => found.name === name);
  if (!handle) throw new Error(`no handle "${name}"`);
  const reach = (at) => {
    const dx = at.x - frame.x;
    const dy = at.y - frame.y;
    if (handle.u !== 0 && handle.v !== 0) return Math.hypot(dx, dy);
    const axis = handle.u !== 0 ? frame.rotation : frame.rotation + Math.PI / 2;
    return Math.abs(dx * Math.cos(axis) + dy * Math.sin(axis));
  };
  const from = reach(start);
  if (from < 1e-6) return 1;
  return Math.max(MIN_FACTOR, reach(point) / from);
}

/**
 * The angle (radians) a drag of the turning handle from `start` to `point`
 * turns by, about the frame's centre; with `snap`, so that the frame's
 * rotation lands on a multiple of 15°.
 */
export function angleFor(frame, start, point, snap = false) {
  const at = (p) => Math.atan2(p.y - frame.y, p.x - frame.x);
  let angle = at(point) - at(start);
  angle = Math.atan2(Math.sin(angle), Math.cos(angle)); // the short way round
  if (!snap) return angle;
  return Math.round((frame.rotation + angle) / SNAP) * SNAP - frame.rotation;
}

const CURSORS = ['ew-resize', 'nwse-resize', 'ns-resize', 'nesw-resize'];

/** The resize cursor for a handle on a frame turned by `rotation`. */
export function cursorFor(name, rotation) {
  if (name === 'rotate') return 'grab';
  const handle = HANDLES.find((found) => found.name === name);
  if (!handle) return 'default';
  const direction = Math.atan2(handle.v, handle.u) + rotation;
  const step = Math.round(direction / (Math.PI / 4));
  return CURSORS[((step % 4) + 4) % 4];
}


/**
 * The selection's box and handles on the canvas, and the gestures their
 * drags make. `layer` is an SVG group in screen units.
 */
export class SelectionHandles {
  /** `isBusy()`: whether other pointers are down on the canvas; a press
   * on a handle then joins their gesture instead. */
  constructor(layer, session, changed, isBusy = () => false) {
    this.isBusy = isBusy;
    this.layer = layer;
    this.session = session;
    this.changed = changed;
    this.shown = '';
    /** The drag in flight: { name, pointer, frame, start, kind } */
    this.drag = null;
    layer.addEventListener('pointerdown', (event) => this.begin(event));
    layer.addEventListener('pointermove', (event) => this.move(event));
    layer.addEventListener('pointerup', (event) => this.end(event, false));
    layer.addEventListener('pointercancel', (event) => this.end(event, true));
  }

  /** Draws the box and handles for the selection as displayed, or none. */
  update(hidden = false) {
    const onScreen = hidden ? null : this.session.selectionFrame();
    const key = JSON.stringify(onScreen);
    if (key === this.shown) return;
    this.shown = key;
    this.frame = onScreen;
    if (!onScreen) {
      this.layer.replaceChildren();
      return;
    }
    const degrees = (onScreen.rotation * 180) / Math.PI;
    const box = element('rect', {
      class: 'selection-box', x: -onScreen.width / 2, y: -onScreen.height / 2,
      width: onScreen.width, height: onScreen.height,
      transform: `translate(${onScreen.x} ${onScreen.y}) rotate(${degrees})`,
    });
    const top = handlePoints(onScreen).find((point) => point.name === 'rotate');
    const stem = onFrame(onScreen, 0, -1);
    const children = [box, element('line', { class: 'rotate-stem', x1: stem.x, y1: stem.y, x2: top.x, y2: top.y })];
    for (const point of handlePoints(onScreen)) {
      const handle = element('g', {
        class: 'handle', 'data-handle': point.name,
        transform: `translate(${point.x} ${point.y}) rotate(${degrees})`,
      });
      // Through the style object: the page's policy refuses style attributes.
      handle.style.cursor = cursorFor(point.name, onScreen.rotation);
      handle.append(element('circle', { class: 'hit', r: 12 }));
      handle.append(point.name === 'rotate'
        ? element('circle', { class: 'knob', r: 5 })
        : element('rect', { class: 'knob', x: -4.5, y: -4.5, width: 9, height: 9 }));
      children.push(handle);
    }
    this.layer.replaceChildren(...children);
  }

  local(event) {
    const box = this.layer.ownerSVGElement.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  begin(event) {
    const name = event.target.closest?.('[data-handle]')?.getAttribute('data-handle');
    if (!name || !this.frame || this.drag || this.isBusy()) return;
    // The canvas's own input must not see this press: it is no tap or drag.
    event.stopPropagation();
    event.preventDefault();
    this.layer.setPointerCapture(event.pointerId);
    const start = this.local(event);
    const { session } = this;
    const kind = name === 'rotate' ? 'rotate' : 'scale';
    this.drag = { name, pointer: event.pointerId, frame: this.frame, start, kind, value: kind === 'rotate' ? 0 : 1 };
    if (kind === 'rotate') session.gesture('rotateBegan', 0, 0);
    else session.gesture('pinchBegan', this.frame.x, this.frame.y);
    this.changed();
  }

  valueAt(event) {
    const { name, frame, start, kind } = this.drag;
    const point = this.local(event);
    return kind === 'rotate' ? angleFor(frame, start, point, event.shiftKey) : scaleFor(name, frame, start, point);
  }

  move(event) {
    if (this.drag?.pointer !== event.pointerId) return;
    event.stopPropagation();
    this.drag.value = this.valueAt(event);
    this.session.gesture(this.drag.kind === 'rotate' ? 'rotateChanged' : 'pinchChanged', this.drag.value);
    this.changed();
  }

  end(event, cancelled) {
    if (this.drag?.pointer !== event.pointerId) return;
    event.stopPropagation();
    const rotating = this.drag.kind === 'rotate';
    if (cancelled) {
      this.session.gesture(rotating ? 'rotateCancelled' : 'pinchCancelled');
    } else {
      const value = this.valueAt(event);
      this.session.gesture(rotating ? 'rotateEnded' : 'pinchEnded', value);
    }
    this.drag = null;
    this.changed();
  }

  /** Whether a handle drag is in flight (the canvas's other input waits). */
  get active() { return this.drag !== null; }
}
