// The WebAssembly model against native Swift: op logs of seeded editing
// sessions (written by the Swift tests, fixtures/convergence.json), applied
// by several wasm replicas in shuffled orders with repeats, must end with
// the state hash native Swift computed for the same log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { easel } from './support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { fixtures } = JSON.parse(await readFile(path.join(here, 'fixtures/convergence.json'), 'utf8'));

/** A small seeded generator (mulberry32), so a failing order can be replayed. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('wasm replicas reach native Swift\'s state hash whatever order the ops arrive in', () => {
  assert.ok(fixtures.length >= 10);
  let orders = 0;
  for (const fixture of fixtures) {
    const messages = fixture.ops.map((text) => Uint8Array.from(Buffer.from(text, 'hex')));
    for (let replica = 0; replica < 4; replica++) {
      const random = seeded(Number(fixture.seed) * 31 + replica);
      const delivery = [...messages, ...messages.filter(() => random() < 0.3)];
      for (let index = delivery.length - 1; index > 0; index--) {
        const other = Math.floor(random() * (index + 1));
        [delivery[index], delivery[other]] = [delivery[other], delivery[index]];
      }
      const document = easel.openDocument();
      for (const message of delivery) assert.equal(document.receive(message), 0);
      assert.equal(document.stateHash, fixture.hash, `seed ${fixture.seed}, replica ${replica}`);
      document.close();
      orders++;
    }
  }
  assert.equal(orders, fixtures.length * 4);
});
