// Gesture recognition (input.mjs): which of the editor's gestures a press,
// a drag, one or two fingers and the wheel make, driven with pointer and
// wheel events on a stand-in canvas and a session that records what it is
// asked.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { SECOND_FINGER_MS, WHEEL_REST_MS, attachInput, zoomFactor } from '../Page/input.mjs';

/** A canvas at the page's corner that keeps its listeners. */
function fakeCanvas() {
  const listeners = {};
  return {
    addEventListener: (type, listener) => { (listeners[type] ??= []).push(listener); },
    setPointerCapture: () => {},
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 800, height: 600 }),
    fire(type, event) {
      const full = { type, pointerType: 'mouse', pressure: 0.5, timeStamp: 0, preventDefault() {}, ...event };
      for (const listener of listeners[type] ?? []) listener(full);
    },
  };
}

/** A session that records gestures and commands (pointer presence left out). */
function recordingSession({ hasSelection = false } = {}) {
  const calls = [];
  return {
    calls,
    flags: { hasSelection },
    gesture: (name, x = 0, y = 0) => { calls.push([name, round(x), round(y)]); return true; },
    perform: (name, named) => {
      calls.push([name, Object.fromEntries(Object.entries(named).map(([key, value]) => [key, round(value)]))]);
      return true;
    },
    pointer: () => {},
  };
}

/** Three decimals, and no negative zero. */
const round = (value) => Math.round(value * 1000) / 1000 + 0;

/** attachInput on a stand-in canvas, with the browser globals it touches. */
function attach(session, { mode = 'select', onText = () => {}, onDrawn = () => {} } = {}) {
  globalThis.ResizeObserver = /** @type {any} */ (class { observe() {} });
  globalThis.addEventListener = /** @type {any} */ (() => {});
  const canvas = fakeCanvas();
  attachInput(/** @type {any} */ (canvas), session, { pressMode: () => mode, changed: () => {}, onText, onDrawn });
  return canvas;
}

test('a press that moves at most 4 px is a tap; further, a drag that ends where it was let go', () => {
  const session = recordingSession();
  const canvas = attach(session);
  canvas.fire('pointerdown', { pointerId: 1, clientX: 100, clientY: 100 });
  canvas.fire('pointermove', { pointerId: 1, clientX: 103, clientY: 102 });
  canvas.fire('pointerup', { pointerId: 1, clientX: 103, clientY: 102 });
  assert.deepEqual(session.calls, [['tap', 100, 100]]);
  session.calls.length = 0;
  canvas.fire('pointerdown', { pointerId: 2, clientX: 100, clientY: 100 });
  canvas.fire('pointermove', { pointerId: 2, clientX: 130, clientY: 110 });
  canvas.fire('pointerup', { pointerId: 2, clientX: 140, clientY: 90 });
  assert.deepEqual(session.calls, [['dragBegan', 100, 100], ['dragChanged', 30, 10], ['dragEnded', 40, -10]]);
});

test('with the Text tool a tap places text where it landed; with the Hand a drag pans the view', () => {
  const texts = [];
  const session = recordingSession();
  const typing = attach(session, { mode: 'text', onText: (point) => texts.push(point) });
  typing.fire('pointerdown', { pointerId: 1, clientX: 50, clientY: 60 });
  typing.fire('pointerup', { pointerId: 1, clientX: 50, clientY: 60 });
  assert.deepEqual(texts, [{ x: 50, y: 60 }]);
  assert.deepEqual(session.calls, [], 'no tap reaches the editor');
  const hand = attach(session, { mode: 'pan' });
  hand.fire('pointerdown', { pointerId: 1, clientX: 100, clientY: 100 });
  hand.fire('pointermove', { pointerId: 1, clientX: 110, clientY: 95 });
  hand.fire('pointermove', { pointerId: 1, clientX: 130, clientY: 95 });
  hand.fire('pointerup', { pointerId: 1, clientX: 130, clientY: 95 });
  assert.deepEqual(session.calls, [['pan', { dx: 10, dy: -5 }], ['pan', { dx: 20, dy: 0 }]]);
});

test('a mouse draws at once: every move a sample, and the end says the drawing is done', () => {
  const session = recordingSession();
  let drawn = 0;
  const canvas = attach(session, { mode: 'draw', onDrawn: () => { drawn += 1; } });
  canvas.fire('pointerdown', { pointerId: 1, clientX: 10, clientY: 10, timeStamp: 1000 });
  canvas.fire('pointermove', { pointerId: 1, clientX: 20, clientY: 12, timeStamp: 1016 });
  canvas.fire('pointerup', { pointerId: 1, clientX: 20, clientY: 12, timeStamp: 1030 });
  assert.deepEqual(session.calls, [['drawBegan', 10, 10], ['drawMoved', 20, 12], ['drawEnded', 0, 0]]);
  assert.equal(drawn, 1);
});

test('a finger that lands to draw waits for a second one: two fingers pinch and never draw', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const session = recordingSession();
  const canvas = attach(session, { mode: 'draw' });
  canvas.fire('pointerdown', { pointerId: 1, pointerType: 'touch', clientX: 100, clientY: 100 });
  canvas.fire('pointerdown', { pointerId: 2, pointerType: 'touch', clientX: 200, clientY: 100 });
  mock.timers.tick(SECOND_FINGER_MS * 2);
  canvas.fire('pointermove', { pointerId: 2, pointerType: 'touch', clientX: 300, clientY: 100 });
  canvas.fire('pointerup', { pointerId: 2, pointerType: 'touch', clientX: 300, clientY: 100 });
  canvas.fire('pointerup', { pointerId: 1, pointerType: 'touch', clientX: 100, clientY: 100 });
  assert.deepEqual(session.calls, [['pinchBegan', 150, 100], ['pinchChanged', 2, 0], ['pinchEnded', 2, 0]]);
  assert.ok(session.calls.every(([name]) => !name.startsWith('draw')), 'nothing drawn');
  mock.timers.reset();
});

test('a lone finger draws once it has waited, from where it landed, its samples kept meanwhile', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const session = recordingSession();
  const canvas = attach(session, { mode: 'draw' });
  canvas.fire('pointerdown', { pointerId: 1, pointerType: 'touch', clientX: 100, clientY: 100, timeStamp: 0 });
  canvas.fire('pointermove', { pointerId: 1, pointerType: 'touch', clientX: 102, clientY: 101, timeStamp: 30 });
  assert.deepEqual(session.calls, [], 'nothing yet');
  mock.timers.tick(SECOND_FINGER_MS);
  canvas.fire('pointerup', { pointerId: 1, pointerType: 'touch', clientX: 102, clientY: 101, timeStamp: 120 });
  assert.deepEqual(session.calls, [['drawBegan', 100, 100], ['drawMoved', 102, 101], ['drawEnded', 0, 0]]);
  mock.timers.reset();
});

test('two fingers that turn more than they spread rotate', () => {
  const session = recordingSession();
  const canvas = attach(session);
  canvas.fire('pointerdown', { pointerId: 1, pointerType: 'touch', clientX: 100, clientY: 100 });
  canvas.fire('pointerdown', { pointerId: 2, pointerType: 'touch', clientX: 200, clientY: 100 });
  // A quarter turn about the first finger, the distance kept.
  canvas.fire('pointermove', { pointerId: 2, pointerType: 'touch', clientX: 100, clientY: 200 });
  canvas.fire('pointerup', { pointerId: 2, pointerType: 'touch', clientX: 100, clientY: 200 });
  assert.deepEqual(session.calls.map(([name]) => name), ['rotateBegan', 'rotateChanged', 'rotateEnded']);
  assert.equal(session.calls[2][1], round(Math.PI / 2));
});

test('the wheel pans; with Ctrl or ⌘ it zooms in proportion; with Alt it scales the selection as one pinch', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const session = recordingSession({ hasSelection: true });
  const canvas = attach(session);
  canvas.fire('wheel', { clientX: 400, clientY: 300, deltaX: 0, deltaY: 40, deltaMode: 0 });
  canvas.fire('wheel', { clientX: 400, clientY: 300, deltaX: 0, deltaY: 40, deltaMode: 0, shiftKey: true });
  canvas.fire('wheel', { clientX: 400, clientY: 300, deltaX: 0, deltaY: -100, deltaMode: 0, ctrlKey: true });
  assert.deepEqual(session.calls, [
    ['pan', { dx: 0, dy: -40 }], ['pan', { dx: -40, dy: 0 }],
    ['zoomBy', { x: 400, y: 300, factor: round(zoomFactor(-100)) }],
  ]);
  assert.equal(round(zoomFactor(-100)), round(Math.SQRT2), 'a notch zooms by at most √2');
  session.calls.length = 0;
  for (let notch = 0; notch < 3; notch++) {
    canvas.fire('wheel', { clientX: 400, clientY: 300, deltaX: 0, deltaY: -100, deltaMode: 0, altKey: true });
  }
  mock.timers.tick(WHEEL_REST_MS);
  assert.deepEqual(session.calls.map(([name]) => name), ['pinchBegan', 'pinchChanged', 'pinchChanged', 'pinchChanged', 'pinchEnded']);
  assert.equal(session.calls.at(-1)[1], round(2 ** 1.5), 'one pinch of three notches: one step to undo');
  mock.timers.reset();
});
