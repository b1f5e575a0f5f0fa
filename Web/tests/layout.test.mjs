// The page's two layouts and where a popover goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PHONE_MAX_WIDTH, POPOVER_GAP, besidePanel, isPhone } from '../Page/layout.mjs';

test('a phone is 640 CSS pixels wide or less, in the script and in every query of the style sheet', () => {
  assert.ok(isPhone(390) && isPhone(640) && !isPhone(641) && !isPhone(1280));
  const css = readFileSync(new URL('../Page/style.css', import.meta.url), 'utf8');
  const widths = [...css.matchAll(/@media \(max-width: (\d+)px\)/g)].map((match) => Number(match[1]));
  assert.ok(widths.length > 0, 'the style sheet has a phone layout');
  assert.deepEqual([...new Set(widths)], [PHONE_MAX_WIDTH]);
});

test('on a laptop a popover sits just right of the options panel, level with its button, within the stage', () => {
  const stage = { left: 0, top: 56, height: 700 };
  const panel = { right: 72 };
  assert.deepEqual(besidePanel(1280, panel, { top: 200 }, stage, 420), { left: 72 + POPOVER_GAP, top: 144 });
  assert.deepEqual(besidePanel(1280, panel, { top: 600 }, stage, 420), { left: 80, top: 280 }, 'kept within the stage');
  assert.deepEqual(besidePanel(1280, panel, { top: 20 }, stage, 420), { left: 80, top: POPOVER_GAP }, 'never above it');
  assert.equal(besidePanel(390, panel, { top: 200 }, stage, 420), null, 'a phone\'s style sheet places it');
});
