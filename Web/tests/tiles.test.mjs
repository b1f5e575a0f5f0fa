// What the tiles draw from: the renderer's SVG read into trees, the grid
// that says which entities a part of the board holds, and the styles and
// references the painter reads. (Chromium paints: Tests/Browser/test_tiles.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scanSVG, textOf, unescape } from '../Page/svg-scan.mjs';
import { PaintGrid, CELL, meets } from '../Page/tile-grid.mjs';
import { INITIAL_STYLE, fontFamilyText, inherit, paint, reference } from '../Page/tile-painter.mjs';

test('an entity group from the renderer reads as its elements, attributes and text', () => {
  const [group] = scanSVG('<g class="emoji" data-id="1@a" id="e-1_a" transform="translate(10 20)">'
    + '<text font-size="40" text-anchor="middle" dominant-baseline="central">🦊 &amp; &lt;3</text></g>\n');
  assert.equal(group.name, 'g');
  assert.deepEqual(group.attributes, { class: 'emoji', 'data-id': '1@a', id: 'e-1_a', transform: 'translate(10 20)' });
  const text = /** @type {any} */ (group.children[0]);
  assert.equal(text.name, 'text');
  assert.equal(text.attributes['font-size'], '40');
  assert.equal(textOf(group), '🦊 & <3');
});

test('spaces typed in a text are kept; whitespace between elements is not content', () => {
  const [text] = scanSVG('<text xml:space="preserve"><tspan x="0" y="1">  two  </tspan><tspan x="0" y="2"> </tspan></text>');
  const lines = text.children.map((line) => textOf(/** @type {any} */ (line)));
  assert.deepEqual(lines, ['  two  ', ' ']);
  const [group] = scanSVG('<g>\n  <rect width="1"/>\n</g>');
  assert.equal(group.children.length, 1, 'only the rect');
});

test('self-closing, nested and unclosed elements all come out as trees; stray closings are skipped', () => {
  const trees = scanSVG('<g><defs><path id="ink-1" d="M0 0L1 1"/></defs></g></g><g><rect x="1"/>');
  assert.equal(trees.length, 2);
  const ink = /** @type {any} */ (/** @type {any} */ (trees[0].children[0]).children[0]);
  assert.equal(ink.attributes.d, 'M0 0L1 1');
  assert.equal(/** @type {any} */ (trees[1].children[0]).name, 'rect');
});

test('the five XML entities and numeric references are read; unknown ones are left as written', () => {
  assert.equal(unescape('&quot;a&apos; &#x1F98A; &#65; &nope;'), '"a\' 🦊 A &nope;');
});

test('the grid finds exactly the entities whose bounds meet a rect, for every rect of a seeded sample', () => {
  let seed = 11;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
  const grid = new PaintGrid();
  /** @type {Map<string, number[]>} */
  const all = new Map();
  for (let index = 0; index < 2000; index++) {
    const x = (random() - 0.5) * 20 * CELL;
    const y = (random() - 0.5) * 20 * CELL;
    const size = random() < 0.02 ? random() * 40 * CELL : random() * CELL;
    const bounds = [x, y, x + size, y + size];
    all.set(`e${index}`, bounds);
    grid.set(`e${index}`, bounds);
  }
  // Some move, some go.
  for (let index = 0; index < 300; index++) {
    const id = `e${Math.floor(random() * 2000)}`;
    if (random() < 0.5) {
      grid.delete(id);
      all.delete(id);
    } else {
      const x = (random() - 0.5) * 20 * CELL;
      const bounds = [x, x, x + 10, x + 10];
      all.set(id, bounds);
      grid.set(id, bounds);
    }
  }
  for (let index = 0; index < 200; index++) {
    const x = (random() - 0.5) * 24 * CELL;
    const y = (random() - 0.5) * 24 * CELL;
    const rect = [x, y, x + random() * 6 * CELL, y + random() * 6 * CELL];
    const expected = [...all].filter(([, bounds]) => meets(bounds, rect)).map(([id]) => id).sort();
    assert.deepEqual([...grid.query(rect)].sort(), expected);
  }
  const everything = grid.query([-1e9, -1e9, 1e9, 1e9]);
  assert.equal(everything.size, all.size, 'a query wider than the board finds everything');
});

test('bounds that are not numbers file nothing and break nothing', () => {
  const grid = new PaintGrid();
  grid.set('bad', [NaN, 0, 1, 1]);
  grid.set('backwards', [5, 5, 1, 1]);
  assert.equal(grid.query([-10, -10, 10, 10]).size, 0);
  grid.delete('bad');
  grid.delete('never');
});

test('children inherit the paint their group sets, and only what it sets', () => {
  const group = inherit(INITIAL_STYLE, { fill: '#ff0000', 'font-size': '24', 'stroke-dasharray': '4 4' });
  assert.equal(group.fill, '#ff0000');
  assert.equal(group.fontSize, 24);
  assert.deepEqual(group.dash, [4, 4]);
  assert.equal(group.stroke, 'none');
  assert.equal(inherit(group, {}), group, 'nothing set: the same style, no copy');
  assert.equal(INITIAL_STYLE.fill, '#000000', 'the parent is not changed');
});

test('a colour with an opacity becomes rgba; none or no opacity paints nothing', () => {
  assert.equal(paint('#2b7cff', 1), '#2b7cff');
  assert.equal(paint('#2b7cff', 0.5), 'rgba(43,124,255,0.5)');
  assert.equal(paint('#fff', 0.25), 'rgba(255,255,255,0.25)');
  assert.equal(paint('none', 1), null);
  assert.equal(paint('#000000', 0), null);
});

test('references read url(#name) and #name; anything else is none', () => {
  assert.equal(reference('url(#holes-1_a)'), 'holes-1_a');
  assert.equal(reference('#ink-2_b'), 'ink-2_b');
  assert.equal(reference('blobs/abc'), null);
  assert.equal(reference(undefined), null);
});

test('a font family goes into the canvas font quoted unless it is a list or quoted already', () => {
  assert.equal(fontFamilyText('Georgia'), '"Georgia"');
  assert.equal(fontFamilyText('3D "Font"'), '"3D \\"Font\\""');
  assert.equal(fontFamilyText('system-ui, sans-serif'), 'system-ui, sans-serif');
  assert.equal(fontFamilyText('"DejaVu Sans"'), '"DejaVu Sans"');
  assert.equal(fontFamilyText(''), '');
});
