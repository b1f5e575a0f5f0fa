// The editing-trace replay the benchmark times in the module (Web/bench/
// text.mjs): patches read once, replayed into a fresh text as often as
// asked, the text as it ends left as the result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { easel } from './support.mjs';

const { exports } = easel;

/** Patches as `easel_text_trace_load` reads them: position, deleted, typed, scalars. */
function patchBytes(patches) {
  const words = patches.flatMap(([position, deleted, typed]) => {
    const scalars = [...typed].map((character) => character.codePointAt(0));
    return [position, deleted, scalars.length, ...scalars];
  });
  return new Uint8Array(Uint32Array.from(words).buffer);
}

function load(bytes) {
  const pointer = exports.easel_alloc(Math.max(bytes.length, 1));
  new Uint8Array(exports.memory.buffer, pointer, bytes.length).set(bytes);
  const loaded = exports.easel_text_trace_load(pointer, bytes.length);
  exports.easel_free(pointer);
  return loaded;
}

function result() {
  const length = exports.easel_text_trace_result();
  const text = new TextDecoder().decode(
    new Uint8Array(exports.memory.buffer, exports.easel_result_pointer(), exports.easel_result_length()));
  return { length, text };
}

test('a loaded trace replays to the text its patches type, each time it is replayed', () => {
  assert.equal(load(patchBytes([[0, 0, 'helo'], [3, 0, 'l'], [5, 0, ' wörld'], [6, 2, 'W'], [10, 0, '🎨']])), 5);
  for (let run = 0; run < 3; run += 1) {
    assert.equal(exports.easel_text_trace_replay(), 11);
    assert.deepEqual(result(), { length: 11, text: 'hello Wrld🎨' });
  }
  // What a replay made is freed with its result: there is none until the next.
  assert.equal(exports.easel_text_trace_result(), -1);
});

test('bytes that are not patches are refused and leave no trace loaded', () => {
  const good = patchBytes([[0, 0, 'ab']]);
  assert.equal(load(good.subarray(0, good.length - 4)), -1, 'a patch typing more scalars than follow');
  assert.equal(load(good.subarray(0, good.length - 1)), -1, 'bytes that are not whole words');
  assert.equal(load(new Uint8Array(Uint32Array.from([0, 0, 1, 0xd800]).buffer)), -1, 'a surrogate is no scalar');
  assert.equal(load(new Uint8Array(Uint32Array.from([0, 0, 0xffffffff]).buffer)), -1, 'a count past any text');
  assert.equal(exports.easel_text_trace_replay(), 0, 'after a refusal, no patches are loaded');
});

test('a patch that does not fit the text as it stands fails the replay', () => {
  assert.equal(load(patchBytes([[0, 0, 'ab'], [1, 5, '']])), 2);
  assert.equal(exports.easel_text_trace_replay(), -1);
  assert.equal(load(patchBytes([[3, 0, 'x']])), 1);
  assert.equal(exports.easel_text_trace_replay(), -1);
});
