// Pointer, touch and wheel events turned into the editor's gestures. Which
// gesture does what (select, move, pan, scale, zoom, rotate) is the
// editor's rule, in the module; this file only says which gesture the
// fingers make.
import { Gesture } from '/static/easel.mjs';

/** How far a press may wander and still be a tap, in CSS pixels. */
const TAP_SLOP = 4;
/** A two-finger gesture turns into a rotation when the angle moves this much
 * (radians) before the distance changes by `PINCH_START` (a ratio). */
const ROTATE_START = 0.26;
const PINCH_START = 0.1;

export function attachInput(svg, session, { isDrawing, changed }) {
  const pointers = new Map();
  let mode = null; // 'pending', 'drag', 'draw', 'pinch', 'rotate', 'two'
  let start = null;
  let drawStart = 0;
  let two = null;

  // The canvas's place on the page, measured when it can change, never per
  // event: measuring forces a layout of every element after a change.
  let box = svg.getBoundingClientRect();
  const measure = () => { box = svg.getBoundingClientRect(); };
  new ResizeObserver(measure).observe(svg);
  addEventListener('scroll', measure, { passive: true });
  const local = (event) => ({ x: event.clientX - box.left, y: event.clientY - box.top });
  const force = (event) => (event.pointerType === 'mouse' ? NaN : event.pressure);
  const now = () => Date.now();

  function twoFingers() {
    const [a, b] = [...pointers.values()];
    return {
      middle: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 },
      distance: Math.hypot(b.x - a.x, b.y - a.y),
      angle: Math.atan2(b.y - a.y, b.x - a.x),
    };
  }

  function endSingle(point) {
    if (mode === 'drag') session.gesture(Gesture.dragEnded, point.x - start.x, point.y - start.y, { now: now() });
    else if (mode === 'draw') session.gesture(Gesture.drawEnded, 0, 0, { now: now() });
    else if (mode === 'pending') session.gesture(Gesture.tap, start.x, start.y, { now: now() });
  }

  svg.addEventListener('pointerdown', (event) => {
    svg.setPointerCapture(event.pointerId);
    const point = local(event);
    pointers.set(event.pointerId, point);
    if (pointers.size === 1) {
      start = point;
      if (isDrawing()) {
        mode = 'draw';
        drawStart = event.timeStamp;
        session.gesture(Gesture.drawBegan, point.x, point.y, { time: 0, force: force(event), now: now() });
      } else {
        mode = 'pending';
      }
    } else if (pointers.size === 2 && mode !== 'draw') {
      // A second finger: whatever the first began becomes a two-finger gesture.
      if (mode === 'drag') session.gesture(Gesture.dragCancelled, 0, 0, { now: now() });
      two = twoFingers();
      mode = 'two';
    }
    changed();
  });

  svg.addEventListener('pointermove', (event) => {
    if (!pointers.has(event.pointerId)) {
      const point = local(event);
      session.pointer(point.x, point.y, true, now());
      return;
    }
    const samples = event.getCoalescedEvents?.() ?? [event];
    for (const sample of samples.length ? samples : [event]) {
      const point = local(sample);
      pointers.set(event.pointerId, point);
      if (mode === 'draw') {
        const time = (sample.timeStamp - drawStart) / 1000;
        session.gesture(Gesture.drawMoved, point.x, point.y, { time, force: force(sample), now: now() });
      }
    }
    const point = pointers.get(event.pointerId);
    session.pointer(point.x, point.y, true, now());
    if (mode === 'pending' && Math.hypot(point.x - start.x, point.y - start.y) > TAP_SLOP) {
      mode = 'drag';
      session.gesture(Gesture.dragBegan, start.x, start.y, { now: now() });
    }
    if (mode === 'drag') {
      session.gesture(Gesture.dragChanged, point.x - start.x, point.y - start.y, { now: now() });
    } else if ((mode === 'two' || mode === 'pinch' || mode === 'rotate') && pointers.size === 2) {
      const current = twoFingers();
      const scale = current.distance / Math.max(two.distance, 1);
      const angle = current.angle - two.angle;
      if (mode === 'two') {
        if (Math.abs(angle) > ROTATE_START) {
          mode = 'rotate';
          session.gesture(Gesture.rotateBegan, 0, 0, { now: now() });
        } else if (Math.abs(scale - 1) > PINCH_START) {
          mode = 'pinch';
          session.gesture(Gesture.pinchBegan, two.middle.x, two.middle.y, { now: now() });
        }
      }
      if (mode === 'pinch') session.gesture(Gesture.pinchChanged, scale, 0, { now: now() });
      if (mode === 'rotate') session.gesture(Gesture.rotateChanged, angle, 0, { now: now() });
    }
    changed();
  });

  function release(event) {
    if (!pointers.has(event.pointerId)) return;
    const point = local(event);
    if (pointers.size === 2 && (mode === 'pinch' || mode === 'rotate' || mode === 'two')) {
      const current = twoFingers();
      if (mode === 'pinch') {
        session.gesture(Gesture.pinchEnded, current.distance / Math.max(two.distance, 1), 0, { now: now() });
      } else if (mode === 'rotate') {
        session.gesture(Gesture.rotateEnded, current.angle - two.angle, 0, { now: now() });
      }
      mode = 'done';
    } else if (pointers.size === 1) {
      if (event.type === 'pointercancel') {
        if (mode === 'drag') session.gesture(Gesture.dragCancelled, 0, 0, { now: now() });
        else if (mode === 'draw') session.gesture(Gesture.drawEnded, 0, 0, { now: now() });
      } else {
        endSingle(point);
      }
      mode = null;
    }
    pointers.delete(event.pointerId);
    if (pointers.size === 0) mode = null;
    changed();
  }
  svg.addEventListener('pointerup', release);
  svg.addEventListener('pointercancel', release);
  svg.addEventListener('pointerleave', (event) => {
    if (!pointers.has(event.pointerId)) session.pointer(0, 0, false, now());
  });

  // Ctrl + wheel (and a trackpad's pinch, which browsers report so) scales
  // the selection or zooms; each wheel step is one small pinch.
  svg.addEventListener('wheel', (event) => {
    if (!event.ctrlKey || mode) return;
    event.preventDefault();
    const point = local(event);
    const scale = Math.exp(-event.deltaY / 200);
    session.gesture(Gesture.pinchBegan, point.x, point.y, { now: now() });
    session.gesture(Gesture.pinchEnded, scale, 0, { now: now() });
    changed();
  }, { passive: false });
}
