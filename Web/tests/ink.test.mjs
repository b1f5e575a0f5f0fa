// The WebAssembly module's ink outlines against the golden file native
// Swift checks too (Tests/EaselModelTests/Ink/InkGoldenTests.swift): the
// same samples must give the same outline, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { instantiateEasel } from '../Shell/easel.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmPath = process.env.EASEL_WASM ?? path.join(root, '.build-wasm/easel.wasm');
const easel = await instantiateEasel(await readFile(wasmPath));
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
