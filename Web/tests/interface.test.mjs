// The module's commands are declared once (`COMMANDS` in easel.mjs): every
// kind there is one the module knows, every kind the module knows is
// there, and the page's named arguments reach the slots the bridge reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS, Command, Status, instantiateEasel } from '../Page/easel.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const easel = await instantiateEasel(await readFile(process.env.EASEL_WASM ?? path.join(root, '.build-wasm/easel.wasm')));
const hello = { document: 'web/interface', replica: '00000000000000b1', user: { name: 'Bo', initials: 'B', color: '#336699ff' } };

/** The raw answer of `easel_session_command` to a kind with every slot zero. */
function answer(session, kind) {
  return session.exports.easel_session_command(session.handle, kind, 0, 0, 0, 0, 0, 0, 0, 0, 0, Date.now());
}

test('every command the table declares is one the module knows, and the module knows no other', () => {
  const session = easel.openSession(hello, 1000);
  const kinds = Object.values(COMMANDS).map((command) => command.kind);
  assert.equal(new Set(kinds).size, kinds.length, 'no two names share a kind');
  for (const [name, { kind }] of Object.entries(COMMANDS)) {
    assert.notEqual(answer(session, kind), Status.unknown, `${name} (${kind}) is a command of the module`);
  }
  const largest = Math.max(...kinds);
  for (const kind of [0, largest + 1, largest + 2, 1000]) assert.equal(answer(session, kind), Status.unknown, `kind ${kind}`);
  for (let kind = 1; kind <= largest; kind++) assert.ok(kinds.includes(kind), `kind ${kind} has a name`);
  assert.deepEqual(Command, Object.fromEntries(Object.entries(COMMANDS).map(([name, { kind }]) => [name, kind])));
  session.close();
});

test('named arguments reach the slots the bridge reads, and a name the table lacks throws', () => {
  const session = easel.openSession(hello, 1000);
  const given = [];
  session.command = (kind, slots) => { given.push([kind, slots]); return true; };
  session.perform('placeText', { text: 'hi', font: 'DejaVu Serif', x: 1, y: 2, size: 3, style: 2, alignment: 1 });
  session.perform('selectPlaced', { on: true });
  assert.deepEqual(given, [
    [Command.placeText, { text: 'hi', extra: 'DejaVu Serif', a: 1, b: 2, c: 3, integer: 2, d: 1 }],
    [Command.selectPlaced, { integer: 1 }],
  ]);
  assert.throws(() => session.perform('fly'), /no command "fly"/);
  assert.throws(() => session.perform('pan', { x: 1 }), /takes no "x"/);
  session.close();
});

test('a refusal is false, whatever refused it', () => {
  const session = easel.openSession(hello, 1000);
  assert.equal(session.perform('pan', { dx: Number.NaN, dy: 0 }), false, 'the editor refuses a NaN');
  assert.equal(session.perform('shapeTool', { shape: 9 }), false, 'no shape 9: out of range');
  assert.equal(session.perform('pan', { dx: 10, dy: 0 }), true);
  session.close();
});
