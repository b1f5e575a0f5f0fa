// Rules the page once wrote in JavaScript and now asks of the module, so
// the page and the Swift clients cannot disagree: document names, replica
// IDs, how long to wait before trying again, what a blob answer means, and
// every conversion between the screen and the document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retrying, TransferError } from '../Page/images.mjs';
import { easel } from './support.mjs';

const hello = { document: 'web/rules', user: { name: 'Cy', initials: 'C', color: '#336699ff' } };

test('document names are the protocol\'s: parts of letters, digits, . _ - joined by /, at most 128 bytes', () => {
  for (const name of ['team/board-1', 'a', 'A.b_c-d/e', 'x'.repeat(128)]) {
    assert.equal(easel.documentNameProblem(name), null, name);
  }
  for (const name of ['', 'a b', '/a', 'a/', 'a//b', '.hidden', 'a/../b', 'ü', 'x'.repeat(129)]) {
    assert.match(easel.documentNameProblem(name) ?? '', /document name/, JSON.stringify(name));
  }
});

test('a session opened without a replica gets a fresh random one from the module, never 0', () => {
  const replicas = new Set();
  for (let index = 0; index < 200; index++) {
    const replica = easel.newReplica();
    assert.match(replica, /^[0-9a-f]{16}$/);
    assert.notEqual(replica, '0000000000000000');
    replicas.add(replica);
  }
  assert.equal(replicas.size, 200);
  const session = easel.openSession(hello, 1000);
  assert.match(session.replica, /^[0-9a-f]{16}$/);
  assert.notEqual(session.replica, '0000000000000000');
  session.close();
});

test('reconnecting waits as the Swift clients do: 100 ms doubling to 10 s, jittered, and never gives up', () => {
  for (let failures = 1; failures <= 10; failures++) {
    const full = Math.min(10000, 100 * 2 ** (failures - 1));
    const waits = Array.from({ length: 100 }, () => easel.retryDelay('reconnect', failures));
    assert.ok(waits.every((wait) => wait >= full / 2 && wait <= full), `after ${failures}: ${Math.min(...waits)}–${Math.max(...waits)}`);
    assert.ok(new Set(waits).size > 50, 'jittered');
  }
  assert.notEqual(easel.retryDelay('reconnect', 1000), null);
  assert.throws(() => easel.retryDelay('forever', 1), /no retry policy/);
});

test('a blob transfer is tried five times in all, 1 s doubling to 8 s apart, as the Swift clients try it', () => {
  for (let failures = 1; failures <= 4; failures++) {
    const full = 1000 * 2 ** (failures - 1);
    const wait = easel.retryDelay('blobTransfer', failures);
    assert.ok(wait >= full / 2 && wait <= full, `after ${failures}: ${wait}`);
  }
  assert.equal(easel.retryDelay('blobTransfer', 5), null);
});

test('a shown image\'s bytes are asked for again from 1 s doubling to 30 s, for as long as it is shown', () => {
  for (const [failures, full] of [[1, 1000], [2, 2000], [5, 16000], [6, 30000], [100, 30000]]) {
    const wait = easel.retryDelay('blobShown', failures);
    assert.ok(wait >= full / 2 && wait <= full, `after ${failures}: ${wait}`);
  }
});

test('a blob answer\'s status means what it means to the Swift clients', () => {
  for (const status of [200, 201, 304]) assert.equal(easel.blobFailure(status), null);
  assert.deepEqual(easel.blobFailure(404), { failure: 'notFound', transient: false });
  assert.deepEqual(easel.blobFailure(403), { failure: 'notAllowed', transient: false });
  assert.deepEqual(easel.blobFailure(413), { failure: 'refused', transient: false });
  for (const status of [0, 429, 500, 503]) assert.deepEqual(easel.blobFailure(status), { failure: 'unavailable', transient: true });
});

test('a transfer is tried again only while it fails transiently and the policy has tries left', async () => {
  const delays = (failures) => easel.retryDelay('blobTransfer', failures);
  const noWait = async () => {};
  let tries = 0;
  const busy = () => { tries += 1; return Promise.reject(new TransferError(503, 'busy', easel.blobFailure(503))); };
  await assert.rejects(retrying(busy, delays, { sleep: noWait }), /503: busy/);
  assert.equal(tries, 5, 'five tries in all');
  tries = 0;
  const refused = () => { tries += 1; return Promise.reject(new TransferError(415, 'no', easel.blobFailure(415))); };
  await assert.rejects(retrying(refused, delays, { sleep: noWait }), /415/);
  assert.equal(tries, 1, 'a refusal is final');
  tries = 0;
  const third = () => (++tries < 3 ? Promise.reject(new TransferError(0, 'down')) : Promise.resolve('stored'));
  assert.equal(await retrying(third, delays, { sleep: noWait }), 'stored');
});

test('frames, nudges, images and placing spots come in screen units through the view', () => {
  const session = easel.openSession(hello, 1000);
  session.perform('selectPlaced', { on: true });
  assert.ok(session.perform('placeShape', { shape: 0, x: 100, y: 100, width: 40, height: 20 }));
  session.perform('zoomTo', { x: 0, y: 0, zoom: 2 });
  session.perform('pan', { dx: 30, dy: -10 });
  // At zoom 2, panned (30, -10): the shape centred at document (100, 100)
  // sits at screen (230, 190) and twice as big.
  const frame = session.selectionFrame();
  assert.deepEqual({ ...frame, rotation: 0 }, { x: 230, y: 190, width: 80, height: 40, rotation: 0 });
  // A nudge of one screen pixel is half a document unit at zoom 2.
  assert.ok(session.perform('nudge', { dx: 10, dy: 0 }));
  assert.equal(session.selectionFrame().x, 240);
  // An image as large on the screen as asked, whatever the zoom.
  const blob = 'ab'.repeat(32);
  assert.ok(session.placeImage(blob, 400, 300, 200, 100));
  const image = session.selectionFrame();
  assert.equal(image.width, 200);
  assert.equal(image.height, 100);
  // The next item steps off the image centred at (400, 300).
  assert.deepEqual(session.placingSpot({ x: 400, y: 300 }), { x: 424, y: 324 });
  assert.deepEqual(session.placingSpot({ x: 10, y: 10 }), { x: 10, y: 10 });
  session.close();
});
