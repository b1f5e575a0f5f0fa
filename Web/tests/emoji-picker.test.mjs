// The emoji picker's logic: enough emoji, a search by name, recent first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMOJI_CATEGORIES } from '../Page/emoji-data.mjs';
import { ALL_EMOJI, RECENT_LIMIT, searchEmoji, withRecent } from '../Page/emoji-picker.mjs';

test('the picker offers at least 200 emoji in categories, none twice', () => {
  assert.ok(ALL_EMOJI.length >= 200, `${ALL_EMOJI.length}`);
  assert.ok(EMOJI_CATEGORIES.length >= 6);
  assert.equal(new Set(ALL_EMOJI.map(([emoji]) => emoji)).size, ALL_EMOJI.length);
  for (const category of EMOJI_CATEGORIES) assert.ok(category.emoji.length > 0, category.name);
});

test('a search finds emoji by every word of their names', () => {
  assert.ok(searchEmoji('fox').includes('🦊'));
  assert.ok(searchEmoji('FOX face').includes('🦊'));
  assert.deepEqual(searchEmoji('fox cactus'), []);
  assert.equal(searchEmoji('').length, ALL_EMOJI.length);
  assert.ok(searchEmoji('heart').length >= 10);
});

test('the recent list puts the last placed first, keeps no repeats and stays short', () => {
  assert.deepEqual(withRecent(['⭐', '🦊'], '🦊'), ['🦊', '⭐']);
  let recent = [];
  for (const [emoji] of ALL_EMOJI.slice(0, 40)) recent = withRecent(recent, emoji);
  assert.equal(recent.length, RECENT_LIMIT);
  assert.equal(recent[0], ALL_EMOJI[39][0]);
});
