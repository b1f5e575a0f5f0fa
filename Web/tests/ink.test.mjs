// The WebAssembly module's ink outlines against the golden file native
// Swift checks too (Tests/EaselModelTests/Ink/InkGoldenTests.swift): the
// same samples must give the same outline, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DrawingAction, easel, root, Tool } from './support.mjs';
const golden = JSON.parse(await readFile(path.join(root, 'Web/tests/fixtures/ink.json'), 'utf8'));

test('every golden stroke gives the outline native Swift gives, bit for bit', () => {
  assert.ok(golden.strokes.length >= 10);
  for (const stroke of golden.strokes) {
    const samples = Uint8Array.from(Buffer.from(stroke.samples, 'hex'));
    const outline = easel.inkOutline(samples, stroke.tool, stroke.weight, stroke.endCap);
    assert.equal(Buffer.from(outline).toString('hex'), stroke.outline, stroke.name);
  }
});

test('a tool that does not exist is refused', () => {
  assert.throws(() => easel.inkOutline(new Uint8Array(16), 99, 3, 0), /no tool 99/);
});

test("the renderer's filters for neon, the pencil's grain and the blur eraser come from the module", () => {
  const filters = easel.filters();
  for (const id of ['neon', 'grain', 'blur']) assert.match(filters, new RegExp(`<filter id="${id}"`));
});

test("each tool's weight slider, as the page reads it, is the range and start Docs/drawing.md's table gives", async () => {
  const docs = await readFile(path.join(root, 'Docs/drawing.md'), 'utf8');
  const row = (name) => {
    const match = docs.match(new RegExp(`^\\s*\\| ${name} \\| ([\\d.]+)–([\\d.]+), starts at ([\\d.]+) \\|`, 'm'));
    assert.ok(match, `Docs/drawing.md has no weights for ${name}`);
    return { min: Number(match[1]), max: Number(match[2]), start: Number(match[3]) };
  };
  const drawing = ['pen', 'brush', 'marker', 'neon', 'pencil'];
  for (const name of drawing) assert.deepEqual(easel.drawingWeights(Tool[name], DrawingAction.ink), row(name), name);
  const erasers = row('pixel and blur erasers, object eraser');
  assert.deepEqual(easel.drawingWeights(Tool.eraser, DrawingAction.ink), erasers, 'pixel eraser');
  assert.deepEqual(easel.drawingWeights(Tool.blur, DrawingAction.ink), erasers, 'blur eraser');
  // The object eraser's slider is its own whatever tool was chosen before.
  for (const name of drawing) {
    assert.deepEqual(easel.drawingWeights(Tool[name], DrawingAction.eraseObjects), erasers, `object eraser after ${name}`);
  }
  assert.throws(() => easel.drawingWeights(99, DrawingAction.ink), /no tool 99/);
});
