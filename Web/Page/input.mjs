// Pointer, touch and wheel events turned into the editor's gestures. Which
// gesture does what (select, move, pan, scale, zoom, rotate) is the
// editor's rule, in the module; this file only says which gesture the
// fingers make.

/** How far a press may wander and still be a tap, in CSS pixels. */
const TAP_SLOP = 4;
/** How long a finger that lands with a drawing tool waits for a second
 * finger before it draws (ms): two fingers pinch and pan, never draw. */
export const SECOND_FINGER_MS = 90;
/** A two-finger gesture turns into a rotation when the angle moves this much
 * (radians) before the distance changes by `PINCH_START` (a ratio). */
const ROTATE_START = 0.26;
const PINCH_START = 0.1;

/**
 * `pressMode()` says what a press does with the active tool: 'draw',
 * 'pan', 'text' or 'select' (tools.mjs). `onText(point)`: a tap with the
 * Text tool; `onDrawn()`: a drawing gesture ended.
 */
export function attachInput(svg, session,
  { pressMode, changed, isHandling = () => false, onText = (/** @type {{ x: number, y: number }} */ _point) => {},
    onDrawn = () => {} }) {
  const pointers = new Map();
  // 'pending', 'drag', 'draw', 'waiting' (a finger about to draw), 'pan',
  // 'pinch', 'rotate', 'two', 'done'
  let mode = null;
  let start = null;
  let drawStart = 0;
  let two = null;
  let waiting = null; // { timer, samples } while a finger waits to draw
  let panned = { x: 0, y: 0 };

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
    if (mode === 'waiting') beginDrawing();
    if (mode === 'drag') session.gesture('dragEnded', point.x - start.x, point.y - start.y, { now: now() });
    else if (mode === 'draw') {
      session.gesture('drawEnded', 0, 0, { now: now() });
      onDrawn();
    } else if (mode === 'pending') {
      if (pressMode() === 'text') onText(start);
      else session.gesture('tap', start.x, start.y, { now: now() });
    }
  }

  /** The drawing a waiting finger holds back begins, with its samples so far. */
  function beginDrawing() {
    const { timer, samples } = waiting;
    clearTimeout(timer);
    waiting = null;
    mode = 'draw';
    const [first, ...rest] = samples;
    session.gesture('drawBegan', first.x, first.y, { time: 0, force: first.force, now: now() });
    for (const sample of rest) {
      session.gesture('drawMoved', sample.x, sample.y, { time: sample.time, force: sample.force, now: now() });
    }
    changed();
  }

  svg.addEventListener('pointerdown', (event) => {
    // A finger that lands while another drags a handle joins nothing.
    if (isHandling()) return;
    svg.setPointerCapture(event.pointerId);
    const point = local(event);
    pointers.set(event.pointerId, point);
    if (pointers.size === 1) {
      start = point;
      const pressing = pressMode();
      if (pressing === 'draw') {
        drawStart = event.timeStamp;
        const sample = { ...point, time: 0, force: force(event) };
        if (event.pointerType === 'touch') {
          // A finger waits a moment: a second one makes a pinch instead.
          mode = 'waiting';
          waiting = { samples: [sample], timer: setTimeout(() => { if (mode === 'waiting') beginDrawing(); }, SECOND_FINGER_MS) };
        } else {
          mode = 'draw';
          session.gesture('drawBegan', point.x, point.y, { time: 0, force: sample.force, now: now() });
        }
      } else {
        mode = pressing === 'pan' ? 'pan' : 'pending';
        panned = { x: 0, y: 0 };
      }
    } else if (pointers.size === 2 && mode !== 'draw') {
      // A second finger: whatever the first began becomes a two-finger gesture.
      if (mode === 'drag') session.gesture('dragCancelled', 0, 0, { now: now() });
      if (mode === 'waiting') {
        clearTimeout(waiting.timer);
        waiting = null;
      }
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
      const time = (sample.timeStamp - drawStart) / 1000;
      if (mode === 'draw') {
        session.gesture('drawMoved', point.x, point.y, { time, force: force(sample), now: now() });
      } else if (mode === 'waiting') {
        waiting.samples.push({ ...point, time, force: force(sample) });
      }
    }
    const point = pointers.get(event.pointerId);
    session.pointer(point.x, point.y, true, now());
    if (mode === 'waiting' && Math.hypot(point.x - start.x, point.y - start.y) > TAP_SLOP) beginDrawing();
    if (mode === 'pan') {
      // The Hand: the view follows the pointer, over entities too.
      const moved = { x: point.x - start.x, y: point.y - start.y };
      session.perform('pan', { dx: moved.x - panned.x, dy: moved.y - panned.y });
      panned = moved;
    }
    if (mode === 'pending' && Math.hypot(point.x - start.x, point.y - start.y) > TAP_SLOP) {
      mode = 'drag';
      session.gesture('dragBegan', start.x, start.y, { now: now() });
    }
    if (mode === 'drag') {
      session.gesture('dragChanged', point.x - start.x, point.y - start.y, { now: now() });
    } else if ((mode === 'two' || mode === 'pinch' || mode === 'rotate') && pointers.size === 2) {
      const current = twoFingers();
      const scale = current.distance / Math.max(two.distance, 1);
      const angle = current.angle - two.angle;
      if (mode === 'two') {
        if (Math.abs(angle) > ROTATE_START) {
          mode = 'rotate';
          session.gesture('rotateBegan', 0, 0, { now: now() });
        } else if (Math.abs(scale - 1) > PINCH_START) {
          mode = 'pinch';
          session.gesture('pinchBegan', two.middle.x, two.middle.y, { now: now() });
        }
      }
      if (mode === 'pinch') session.gesture('pinchChanged', scale, 0, { now: now() });
      if (mode === 'rotate') session.gesture('rotateChanged', angle, 0, { now: now() });
    }
    changed();
  });

  function release(event) {
    if (!pointers.has(event.pointerId)) return;
    const point = local(event);
    if (pointers.size === 2 && (mode === 'pinch' || mode === 'rotate' || mode === 'two')) {
      const current = twoFingers();
      if (mode === 'pinch') {
        session.gesture('pinchEnded', current.distance / Math.max(two.distance, 1), 0, { now: now() });
      } else if (mode === 'rotate') {
        session.gesture('rotateEnded', current.angle - two.angle, 0, { now: now() });
      }
      mode = 'done';
    } else if (pointers.size === 1) {
      if (event.type === 'pointercancel') {
        if (mode === 'drag') session.gesture('dragCancelled', 0, 0, { now: now() });
        else if (mode === 'draw') session.gesture('drawEnded', 0, 0, { now: now() });
        else if (mode === 'waiting') {
          clearTimeout(waiting.timer);
          waiting = null;
        }
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

  // The wheel as people expect it: a wheel or a two-finger trackpad scroll
  // pans; Ctrl or ⌘ with the wheel, which is how browsers report a trackpad
  // pinch, zooms in proportion to the motion; Alt with the wheel scales the
  // selection, as one pinch that ends when the wheel has rested a moment,
  // so however many wheel events it takes it is one step to undo.
  let wheelScale = null; // { factor, timer } while Alt + wheel scales
  function endWheelScale() {
    if (!wheelScale) return;
    clearTimeout(wheelScale.timer);
    session.gesture('pinchEnded', wheelScale.factor, 0, { now: now() });
    wheelScale = null;
    changed();
  }
  svg.addEventListener('pointerdown', endWheelScale, { capture: true });
  svg.addEventListener('wheel', (event) => {
    if (mode) return;
    event.preventDefault();
    const point = local(event);
    const { dx, dy } = wheelPixels(event, box.height);
    if (event.altKey && session.flags.hasSelection) {
      if (!wheelScale) {
        session.gesture('pinchBegan', point.x, point.y, { now: now() });
        wheelScale = { factor: 1, timer: null };
      }
      wheelScale.factor *= zoomFactor(dy);
      session.gesture('pinchChanged', wheelScale.factor, 0, { now: now() });
      clearTimeout(wheelScale.timer);
      wheelScale.timer = setTimeout(endWheelScale, WHEEL_REST_MS);
    } else if (event.ctrlKey || event.metaKey || event.altKey) {
      session.perform('zoomBy', { x: point.x, y: point.y, factor: zoomFactor(dy) });
    } else {
      // Shift turns a plain wheel's vertical scroll sideways, as pages do.
      const sideways = event.shiftKey && dx === 0;
      session.perform('pan', { dx: sideways ? -dy : -dx, dy: sideways ? 0 : -dy });
    }
    changed();
  }, { passive: false });
  // Anything else the page does first ends a wheel scaling still resting;
  // a handle waits while fingers are down on the canvas (a second finger
  // near a handle makes a pinch, not a handle drag).
  return { settle: endWheelScale, busy: () => pointers.size > 0 };
}

/** How long the wheel rests before an Alt + wheel scaling ends, in ms. */
export const WHEEL_REST_MS = 300;

/** A wheel event's motion in CSS pixels, whatever unit it came in. */
export function wheelPixels(event, pageHeight) {
  const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? pageHeight : 1;
  return { dx: event.deltaX * unit, dy: event.deltaY * unit };
}

/**
 * The zoom a wheel's vertical motion asks for: in proportion to it, so a
 * trackpad pinch's small steps zoom smoothly, and a mouse wheel's notch
 * (100 pixels) zooms by at most √2.
 */
export function zoomFactor(dy) {
  return 2 ** (-Math.max(-50, Math.min(50, dy)) / 100);
}
