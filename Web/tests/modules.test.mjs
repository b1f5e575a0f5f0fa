// Every page module loads under Node by its relative imports (the entry
// scripts, which start the page or its module as they load, excepted), so each one's
// logic can be tested here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';

const ENTRY_SCRIPTS = new Set(['boot.mjs', 'canvas.mjs', 'picker.mjs']);

test('every page module but the entry scripts loads under Node', async () => {
  const folder = new URL('../Page/', import.meta.url);
  const modules = readdirSync(folder).filter((name) => name.endsWith('.mjs') && !ENTRY_SCRIPTS.has(name));
  assert.ok(modules.length >= 20, `${modules.length} modules`);
  for (const name of modules) {
    const loaded = await import(new URL(name, folder).href);
    assert.ok(Object.keys(loaded).length > 0, `${name} exports something`);
  }
});

test('the module the page loads is under 500 kB gzipped (gzip -9), its budget', async () => {
  const { gzipSync } = await import('node:zlib');
  const { wasmBytes } = await import('./support.mjs');
  const gzipped = gzipSync(wasmBytes, { level: 9 }).length;
  assert.ok(gzipped < 500_000, `${gzipped} bytes gzipped: Docs/web.md says what took it down before`);
});
