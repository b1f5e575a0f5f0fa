// The selection's handles: where they sit and what a drag of each asks the
// editor for (a pinch factor or a turn), for upright and turned frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HANDLES, MIN_FACTOR, ROTATE_OFFSET, SIDES_MIN, SNAP, angleFor, cursorFor, handlePoints, scaleFor,
} from '../Page/handles.mjs';

const near = (actual, expected, message) => assert.ok(Math.abs(actual - expected) < 1e-9, `${message}: ${actual} ≠ ${expected}`);
const upright = { x: 100, y: 100, width: 200, height: 100, rotation: 0 };

test('eight handles sit on the corners and sides, and the turning one above the top', () => {
  const points = Object.fromEntries(handlePoints(upright).map((point) => [point.name, point]));
  assert.deepEqual(Object.keys(points).sort(), [...HANDLES.map((handle) => handle.name), 'rotate'].sort());
  assert.deepEqual(points.nw, { name: 'nw', x: 0, y: 50 });
  assert.deepEqual(points.e, { name: 'e', x: 200, y: 100 });
  assert.deepEqual(points.rotate, { name: 'rotate', x: 100, y: 50 - ROTATE_OFFSET });
});

test('the handles turn with a turned frame', () => {
  const turned = { ...upright, rotation: Math.PI / 2 };
  const points = Object.fromEntries(handlePoints(turned).map((point) => [point.name, point]));
  near(points.e.x, 100, 'east goes down'); near(points.e.y, 200, 'east goes down');
  near(points.rotate.x, 100 + 50 + ROTATE_OFFSET, 'the turning handle goes right');
  near(points.rotate.y, 100, 'the turning handle goes right');
});

test('a small frame shows its corners only, so handles never pile up', () => {
  const small = { ...upright, width: SIDES_MIN - 1, height: 20 };
  assert.deepEqual(handlePoints(small).map((point) => point.name), ['nw', 'ne', 'se', 'sw', 'rotate']);
});

test('a corner scales by the distance from the centre, whichever way it is dragged', () => {
  near(scaleFor('se', upright, { x: 200, y: 150 }, { x: 300, y: 200 }), 2, 'out twice as far');
  near(scaleFor('nw', upright, { x: 0, y: 50 }, { x: 50, y: 75 }), 0.5, 'in halfway');
});

test('a side scales along its own axis only, also when the frame is turned', () => {
  near(scaleFor('e', upright, { x: 200, y: 100 }, { x: 250, y: 400 }), 1.5, 'up and down does nothing');
  near(scaleFor('n', upright, { x: 100, y: 50 }, { x: 900, y: 0 }), 2, 'sideways does nothing');
  const turned = { ...upright, rotation: Math.PI / 2 };
  near(scaleFor('e', turned, { x: 100, y: 200 }, { x: 160, y: 300 }), 2, 'east of a quarter turn goes down');
});

test('a handle dragged through the centre never turns the box inside out', () => {
  assert.equal(scaleFor('se', upright, { x: 200, y: 150 }, { x: 100, y: 100 }), MIN_FACTOR);
  assert.equal(scaleFor('se', upright, { x: 100, y: 100 }, { x: 200, y: 200 }), 1, 'a press on the centre scales nothing');
  assert.throws(() => scaleFor('middle', upright, { x: 0, y: 0 }, { x: 1, y: 1 }), /no handle/);
});

test('the turning handle turns by the angle swept about the centre, the short way round', () => {
  near(angleFor(upright, { x: 100, y: 0 }, { x: 200, y: 100 }), Math.PI / 2, 'a quarter clockwise');
  assert.ok(Math.abs(angleFor(upright, { x: 0, y: 101 }, { x: 0, y: 99 })) < 0.05, 'across the ±π seam stays small');
});

test('Shift snaps the frame\'s rotation to 15° steps', () => {
  const turned = { ...upright, rotation: 0.1 };
  const angle = angleFor(turned, { x: 100, y: 0 }, { x: 200, y: 90 }, true);
  const total = turned.rotation + angle;
  near(total / SNAP, Math.round(total / SNAP), 'lands on a step');
});

test('a resize cursor points the way its handle moves, turned with the frame', () => {
  assert.equal(cursorFor('e', 0), 'ew-resize');
  assert.equal(cursorFor('se', 0), 'nwse-resize');
  assert.equal(cursorFor('ne', 0), 'nesw-resize');
  assert.equal(cursorFor('e', Math.PI / 2), 'ns-resize');
  assert.equal(cursorFor('rotate', 1), 'grab');
});
