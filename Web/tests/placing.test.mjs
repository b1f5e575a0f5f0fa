// Placing: a new item at the middle of the view, or stepped off the last one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STEP, STEPS, freeSpot, screenPosition } from '../Page/placing.mjs';

test('a new item goes to the middle when nothing sits there', () => {
  assert.deepEqual(freeSpot({ x: 400, y: 300 }, [{ x: 100, y: 100 }]), { x: 400, y: 300 });
});

test('one after another, new items step down and to the right instead of piling up', () => {
  const taken = [];
  for (let index = 0; index < 3; index++) taken.push(freeSpot({ x: 400, y: 300 }, taken));
  assert.deepEqual(taken, [{ x: 400, y: 300 }, { x: 400 + STEP, y: 300 + STEP }, { x: 400 + 2 * STEP, y: 300 + 2 * STEP }]);
  assert.deepEqual(freeSpot({ x: 400, y: 300 }, taken.slice(1)), { x: 400, y: 300 }, 'the middle is free again');
});

test('after every step is taken the next goes back to the middle', () => {
  const taken = Array.from({ length: STEPS }, (_, step) => ({ x: step * STEP, y: step * STEP }));
  assert.deepEqual(freeSpot({ x: 0, y: 0 }, taken), { x: 0, y: 0 });
});

test('an entity\'s place on the screen comes from its leading translate and the viewport', () => {
  assert.deepEqual(screenPosition('translate(10 20) rotate(30)', [5, 6, 2]), { x: 25, y: 46 });
  assert.equal(screenPosition('rotate(30)', [0, 0, 1]), null);
  assert.equal(screenPosition(null, [0, 0, 1]), null);
});
