// The clipboard: the page's clippings are known from any other text, and
// plain text pasted keeps within the model's limit, whole characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEXT_BYTES, isClipping, pastedText } from '../Page/clipboard.mjs';

test('a clipping is known by what it starts with, and nothing else is', () => {
  assert.ok(isClipping('{"easel":"clipping","version":1,"entities":[]}'));
  assert.ok(isClipping(' { "easel" : "clipping" }'));
  for (const other of ['hello', '{"easel":"other"}', '', '["easel","clipping"]']) assert.equal(isClipping(other), false, other);
});

test('pasted plain text is trimmed, its line ends made one, and cut at the limit between characters', () => {
  assert.equal(pastedText('  two\r\nlines \n'), 'two\nlines');
  const long = '🦊'.repeat(TEXT_BYTES); // four bytes each
  const cut = pastedText(long);
  assert.equal(new TextEncoder().encode(cut).length, TEXT_BYTES);
  assert.equal([...cut].every((character) => character === '🦊'), true, 'no half character');
});
