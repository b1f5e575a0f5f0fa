// Typing into a text in place, as the page's editor drives the module:
// each change is one replace of characters, counted in Unicode scalars,
// and the caret is kept by the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { easel, root } from './support.mjs';

const welcomeTail = Uint8Array.from(Buffer.from(
  (await readFile(path.join(root, 'Protocol/vectors/valid/welcome-tail.hex'), 'utf8')).replace(/\s+/g, ''), 'hex'));
const hello = {
  document: 'web/typing', replica: '00000000000000a1',
  user: { name: 'Ada', initials: 'A', color: '#336699ff' },
};

/** A welcomed session (protocol 4) with one text placed and selected. */
function sessionWithText(string) {
  const session = easel.openSession(hello, 1000);
  session.connectionOpened(1000);
  assert.equal(session.receive(welcomeTail, 1001), 0);
  session.perform('selectPlaced', { on: true });
  assert.ok(session.perform('placeText', { text: string, font: 'DejaVu Sans', x: 100, y: 100, size: 24 }));
  session.takeOutputs();
  return session;
}

test('each change typed in place is one replace of scalars, and the caret follows what was typed', () => {
  const session = sessionWithText('Meeting notes');
  assert.ok(session.placeCaret({ anchor: 13, head: 13 }));
  assert.ok(session.perform('replaceSelectedText', { start: 13, end: 13, text: ' from 🦊' }));
  assert.deepEqual(session.caret(), { text: 'Meeting notes from 🦊', anchor: 20, head: 20 });
  assert.ok(session.perform('replaceSelectedText', { start: 0, end: 8, text: '' }));
  assert.deepEqual(session.caret(), { text: 'notes from 🦊', anchor: 0, head: 0 }, 'the caret after the deletion');
  assert.ok(session.placeCaret({ anchor: 12, head: 6 }), 'a selection made backwards');
  assert.deepEqual(session.caret(), { text: 'notes from 🦊', anchor: 12, head: 6 });
  const pushed = session.takeOutputs().filter((output) => output.send);
  assert.ok(pushed.length >= 1 && pushed.every((output) => easel.decode(output.send).code === 0));
  session.close();
});

test('typing ends with the caret taken out, and undo takes back a word at a time', () => {
  const session = sessionWithText('');
  for (const [index, key] of [...'hello big world'].entries()) {
    assert.ok(session.perform('replaceSelectedText', { start: index, end: index, text: key }));
  }
  assert.ok(session.perform('undo'));
  assert.equal(session.selectedText, 'hello big ');
  assert.ok(session.placeCaret(null));
  assert.equal(session.caret(), null);
  session.close();
});

test('a replace out of range changes nothing, and one with no text selected is refused', () => {
  const session = sessionWithText('abc');
  assert.equal(session.perform('replaceSelectedText', { start: 2, end: 1, text: 'x' }), false);
  assert.equal(session.perform('replaceSelectedText', { start: 0, end: 4, text: 'x' }), false);
  assert.equal(session.perform('replaceSelectedText', { start: 0.5, end: 1, text: 'x' }), false);
  assert.equal(session.selectedText, 'abc');
  session.perform('clearSelection');
  assert.equal(session.perform('replaceSelectedText', { start: 0, end: 0, text: 'x' }), false);
  assert.equal(session.placeCaret({ anchor: 0, head: 0 }), false);
  session.close();
});
