// How people look to each other on the page: initials and colours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { colourFor, contrast, initials, INITIALS_CONTRAST } from '../Page/people.mjs';

test('initials are the first letters of the first and last words, whole characters', () => {
  assert.equal(initials('Ada Lovelace'), 'AL');
  assert.equal(initials('  grace brewster murray hopper '), 'GH');
  assert.equal(initials('bob'), 'B');
  assert.equal(initials('Ö zil'), 'ÖZ');
  assert.equal(initials('e\u0301mile zola'), 'E\u0301Z', 'a letter with a combining accent stays whole');
  assert.equal(initials('👩‍👩‍👧 family'), '👩‍👩‍👧F', 'an emoji of several code points stays whole');
  assert.equal(initials('   '), '?');
});

test('white initials are readable on every colour a name gets', () => {
  let lightest = 21;
  for (let index = 0; index < 5000; index++) {
    const colour = colourFor(`Guest ${index}`);
    assert.match(colour, /^#[0-9a-f]{6}ff$/);
    const rgb = [1, 3, 5].map((at) => parseInt(colour.slice(at, at + 2), 16));
    const ratio = contrast(rgb, [255, 255, 255]);
    assert.ok(ratio >= INITIALS_CONTRAST, `${colour} for Guest ${index}: ${ratio.toFixed(2)}`);
    lightest = Math.min(lightest, ratio);
  }
  assert.ok(lightest < INITIALS_CONTRAST + 0.5, 'as light as the rule allows, not simply dark');
  assert.equal(colourFor('Ada'), colourFor('Ada'), 'the same name, the same colour');
});

test('contrast follows WCAG 2: black on white is 21, a colour on itself 1', () => {
  assert.equal(contrast([0, 0, 0], [255, 255, 255]), 21);
  assert.equal(contrast([90, 120, 200], [90, 120, 200]), 1);
});
