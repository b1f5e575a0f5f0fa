// The picker's colour model: hex both ways, HSB both ways for every colour
// of a seeded sample, the grid and the recent colours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RECENT, cssColor, formatHex, fromHSB, parseHex, spectrumColour, swatchGrid, toHSB, withRecent,
} from '../Page/colour.mjs';

test('hex in three, six or eight digits reads as the model keeps colours; anything else is refused', () => {
  assert.equal(parseHex('#2b7cff'), 0x2b7cffff);
  assert.equal(parseHex('2B7CFF80'), 0x2b7cff80);
  assert.equal(parseHex('#fa0'), 0xffaa00ff);
  for (const bad of ['', '#12', '#12345', 'red', '#gggggg', '#1234567']) assert.equal(parseHex(bad), null, bad);
  assert.equal(formatHex(0x2b7cffff), '#2b7cff');
  assert.equal(formatHex(0x2b7cff80), '#2b7cff80');
  assert.equal(cssColor(0xff000080), 'rgba(255, 0, 0, 0.502)');
});

test('every colour goes to hue, saturation and brightness and back unchanged (seeded sample)', () => {
  let seed = 7;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed; };
  for (let index = 0; index < 5000; index++) {
    const rgba = ((random() & 0xffffff) * 256 + (random() & 0xff)) >>> 0;
    assert.equal(fromHSB(toHSB(rgba)), rgba, formatHex(rgba));
  }
  assert.deepEqual(toHSB(0xff0000ff), { hue: 0, saturation: 1, brightness: 1, opacity: 1 });
  assert.equal(fromHSB({ hue: 240, saturation: 1, brightness: 1 }), 0x0000ffff);
  assert.equal(fromHSB({ hue: 480, saturation: 1, brightness: 1 }), 0x00ff00ff, 'hue wraps');
});

test('the grid holds a row of greys from white to black and five rows of twelve hues, all different', () => {
  const grid = swatchGrid();
  assert.equal(grid.length, 6);
  assert.ok(grid.every((row) => row.length === 12));
  assert.equal(grid[0][0], 0xffffffff);
  assert.equal(grid[0][11], 0x000000ff);
  assert.equal(new Set(grid.flat()).size, 72);
});

test('recent colours: the newest first, once each, at most ten', () => {
  let recent = [];
  for (let index = 0; index < 15; index++) recent = withRecent(recent, index);
  recent = withRecent(recent, 12);
  assert.equal(recent.length, RECENT);
  assert.deepEqual(recent.slice(0, 3), [12, 14, 13]);
});

test('the spectrum runs through the hues across, and from white through the pure hue to black down', () => {
  assert.equal(spectrumColour(0, 0), 0xffffffff);
  assert.equal(spectrumColour(0, 0.5), 0xff0000ff);
  assert.equal(spectrumColour(1 / 3, 0.5), 0x00ff00ff);
  assert.equal(spectrumColour(0.5, 1), 0x000000ff);
  assert.equal(spectrumColour(2, -1, 0.5), 0xffffff80, 'outside the spectrum: its edge');
});
