// The tools: one active, each saying what a press does, which drawing
// settings the editor gets and which options show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ALIGNMENTS, DEFAULT_CHOICES, FONTS, TEXT_OPTIONS, TEXT_SIZES, TEXT_STYLES, TOOLS, drawingFor, fillColor, optionsFor,
  pressMode, tool,
} from '../Page/tools.mjs';
import { DrawingAction, Tool } from './support.mjs';

const numbers = { Tool, DrawingAction };
const choose = (changes) => ({ ...DEFAULT_CHOICES, ...changes });

test('the page opens on the Select tool, and the tools are the ones people know, each with its letter', () => {
  assert.equal(DEFAULT_CHOICES.tool, 'select');
  assert.deepEqual(TOOLS.map((found) => found.id), ['select', 'hand', 'draw', 'eraser', 'lasso', 'shapes', 'text']);
  assert.equal(new Set(TOOLS.map((found) => found.key)).size, TOOLS.length);
  assert.throws(() => tool('spray'), /no tool "spray"/);
});

test('drawing tools draw, the Hand pans, Text types and Select selects', () => {
  const modes = Object.fromEntries(TOOLS.map(({ id }) => [id, pressMode(choose({ tool: id }))]));
  assert.deepEqual(modes, {
    select: 'select', hand: 'pan', draw: 'draw', eraser: 'draw', lasso: 'draw', shapes: 'draw', text: 'text',
  });
});

test('each drawing tool gives the editor one drawing action, and the others none', () => {
  assert.deepEqual(drawingFor(choose({ tool: 'draw', pen: 'neon' }), numbers), { tool: Tool.neon, action: DrawingAction.ink });
  assert.deepEqual(drawingFor(choose({ tool: 'eraser', eraser: 'pixels' }), numbers), { tool: Tool.eraser, action: DrawingAction.ink });
  assert.deepEqual(drawingFor(choose({ tool: 'eraser', eraser: 'blur' }), numbers), { tool: Tool.blur, action: DrawingAction.ink });
  assert.equal(drawingFor(choose({ tool: 'eraser', eraser: 'objects' }), numbers).action, DrawingAction.eraseObjects);
  assert.equal(drawingFor(choose({ tool: 'lasso' }), numbers).action, DrawingAction.lasso);
  assert.equal(drawingFor(choose({ tool: 'shapes' }), numbers).action, DrawingAction.shape);
  for (const id of ['select', 'hand', 'text']) assert.equal(drawingFor(choose({ tool: id }), numbers), null, id);
});

test('each tool shows its own options and nothing else; Select shows the selection\'s only when there is one', () => {
  assert.deepEqual(optionsFor(choose({ tool: 'draw' })), ['pens', 'color', 'weight', 'cap']);
  assert.deepEqual(optionsFor(choose({ tool: 'eraser' }), { hasSelection: true }), ['erasers', 'weight']);
  assert.deepEqual(optionsFor(choose({ tool: 'shapes' })), ['shapes', 'color', 'fill', 'weight']);
  assert.deepEqual(optionsFor(choose({ tool: 'text' })), [...TEXT_OPTIONS, 'color']);
  assert.deepEqual(optionsFor(choose({ tool: 'lasso' }), { hasSelection: true }), []);
  assert.deepEqual(optionsFor(choose({ tool: 'hand' }), { hasSelection: true }), []);
  assert.deepEqual(optionsFor(choose({ tool: 'select' })), []);
  assert.deepEqual(optionsFor(choose({ tool: 'select' }), { hasSelection: true }), ['color', 'weight', 'arrange']);
  assert.deepEqual(optionsFor(choose({ tool: 'select' }), { hasSelection: true, hasShape: true, hasText: true }),
    [...TEXT_OPTIONS, 'color', 'fill', 'weight', 'arrange'], 'fill for shapes, the text options for texts');
});

test('at least four fonts, each served by the page, and the text choices start in range', () => {
  assert.ok(FONTS.length >= 4);
  assert.equal(new Set(FONTS.map((font) => font.family)).size, FONTS.length);
  for (const font of FONTS) assert.match(font.file, /^[A-Za-z-]+\.ttf$/);
  assert.equal(DEFAULT_CHOICES.font, FONTS[0].family);
  assert.ok(DEFAULT_CHOICES.textSize >= TEXT_SIZES.min && DEFAULT_CHOICES.textSize <= TEXT_SIZES.max);
  assert.deepEqual(TEXT_STYLES, ['regular', 'outlined', 'framed'], 'the model\'s raw values, in order');
  assert.deepEqual(ALIGNMENTS, ['left', 'center', 'right']);
});

test('a fill is the drawing colour at none, a quarter or full opacity', () => {
  assert.equal(fillColor(0x2b7cffff, 'none'), 0x2b7cff00);
  assert.equal(fillColor(0x2b7cffff, 'semi'), 0x2b7cff40);
  assert.equal(fillColor(0x2b7cff80, 'solid'), 0x2b7cffff);
});
