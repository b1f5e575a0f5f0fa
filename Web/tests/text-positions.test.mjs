// The textarea's UTF-16 offsets against the model's scalars, and the edit
// one keystroke, paste or cut made: checked on random strings with emoji.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeInLines, scalarsBefore, textEdit, utf16Offset } from '../Page/text-positions.mjs';

const pieces = ['a', 'b', ' ', '\n', 'é', '😀', '👍🏽', '中'];

function randomText(random, length) {
  let string = '';
  for (let index = 0; index < length; index += 1) string += pieces[Math.floor(random() * pieces.length)];
  return string;
}

/** A small seeded generator (mulberry32), so a failure names its seed. */
function seeded(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('scalar positions and UTF-16 offsets convert both ways at every scalar boundary', () => {
  const string = 'a😀b👍🏽\nc';
  const scalars = [...string];
  for (let count = 0; count <= scalars.length; count += 1) {
    const offset = utf16Offset(string, count);
    assert.equal(offset, scalars.slice(0, count).join('').length);
    assert.equal(scalarsBefore(string, offset), count);
  }
});

test('a keystroke typed where the text repeats is found at the caret', () => {
  assert.deepEqual(textEdit('aa', 'aaa', 1), { start: 0, end: 0, inserted: 'a' });
  assert.deepEqual(textEdit('aa', 'aaa', 3), { start: 2, end: 2, inserted: 'a' });
  assert.deepEqual(textEdit('ab', 'ab', 1), null);
});

test('an edit never splits an emoji, even where two emoji share a surrogate half', () => {
  // 😀 and 😁 share their leading surrogate.
  const edit = textEdit('x😀y', 'x😁y', 3);
  assert.deepEqual(edit, { start: 1, end: 3, inserted: '😁' });
});

test('applying the edit found for any change of any string gives the new string, on whole scalars', () => {
  for (let seed = 1; seed <= 2000; seed += 1) {
    const random = seeded(seed);
    const before = randomText(random, Math.floor(random() * 8));
    const scalars = [...before];
    const start = Math.floor(random() * (scalars.length + 1));
    const end = start + Math.floor(random() * (scalars.length - start + 1));
    const inserted = randomText(random, Math.floor(random() * 4));
    const after = scalars.slice(0, start).join('') + inserted + scalars.slice(end).join('');
    const caret = scalars.slice(0, start).join('').length + inserted.length;
    const edit = textEdit(before, after, caret);
    if (before === after) {
      assert.equal(edit, null, `seed ${seed}`);
      continue;
    }
    assert.equal(before.slice(0, edit.start) + edit.inserted + before.slice(edit.end), after, `seed ${seed}`);
    for (const offset of [edit.start, edit.end]) {
      assert.equal(utf16Offset(before, scalarsBefore(before, offset)), offset, `seed ${seed}: offset ${offset} splits a pair`);
    }
  }
});

test('a place in a text of several lines counts each newline as one scalar and lands on the last line past the end', () => {
  const lines = ['a😀b', '', 'cd'];
  assert.deepEqual(placeInLines(lines, 0), { line: 0, offset: 0 });
  assert.deepEqual(placeInLines(lines, 2), { line: 0, offset: 3 });
  assert.deepEqual(placeInLines(lines, 3), { line: 0, offset: 4 });
  assert.deepEqual(placeInLines(lines, 4), { line: 1, offset: 0 });
  assert.deepEqual(placeInLines(lines, 5), { line: 2, offset: 0 });
  assert.deepEqual(placeInLines(lines, 7), { line: 2, offset: 2 });
  assert.deepEqual(placeInLines(lines, 99), { line: 2, offset: 2 });
});
