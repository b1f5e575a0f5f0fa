// The module's interface is declared once, in Web/Bridge/Interface.swift,
// and read from the module (`easel_interface`): every export it declares is
// one the module has, with as many parameters, named as the @_cdecl
// function names them, and the module has no other; every command and
// gesture kind is one the module knows and it knows no other; named
// arguments reach the slots the bridge reads; every call the shell makes
// passes as many arguments as declared (the tests load the module with
// `checkCalls`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { instantiateEasel } from '../Page/easel.mjs';
import { easel, root, wasmBytes } from './support.mjs';

const table = easel.interface;
const hello = { document: 'web/interface', replica: '00000000000000b1', user: { name: 'Bo', initials: 'B', color: '#336699ff' } };

/** The @_cdecl functions of the bridge's sources: name → parameter names. */
async function declaredInSwift() {
  const folder = path.join(root, 'Web/Bridge');
  const sources = await Promise.all((await readdir(folder)).filter((name) => name.endsWith('.swift'))
    .map((name) => readFile(path.join(folder, name), 'utf8')));
  const declared = {};
  for (const match of sources.join('\n').matchAll(/@_cdecl\("(\w+)"\)\s*public func \w+\(([^)]*)\)/g)) {
    declared[match[1]] = match[2].split(',').map((parameter) => parameter.trim()).filter(Boolean)
      .map((parameter) => /^_\s+(\w+)\s*:/.exec(parameter)[1]);
  }
  return declared;
}

test('every export the interface declares is the module\'s, with its parameters as Swift names them, and there is no other', async () => {
  const { instance } = await WebAssembly.instantiate(wasmBytes, {
    wasi_snapshot_preview1: { fd_close: () => 52, fd_seek: () => 52, fd_write: () => 52, random_get: () => 0 },
  });
  const functions = Object.entries(instance.exports).filter(([, value]) => typeof value === 'function')
    .map(([name]) => name).filter((name) => name.startsWith('easel_'));
  assert.deepEqual(Object.keys(table.exports).sort(), functions.sort(), 'the same exports');
  for (const [name, parameters] of Object.entries(table.exports)) {
    assert.equal(instance.exports[name].length, parameters.length, `${name} takes ${parameters.length} arguments`);
  }
  assert.deepEqual(await declaredInSwift(), table.exports, 'the table names the parameters as the @_cdecl functions do');
});

test('a call with another number of arguments than declared throws when calls are checked', () => {
  assert.throws(() => easel.exports.easel_session_flags(), /easel_session_flags\(handle\) called with 0 arguments/);
  assert.throws(() => easel.exports.easel_session_tick(1, 2, 3), /called with 3 arguments/);
});

/** The raw answer of `easel_session_command` to a kind with every slot zero. */
function commandAnswer(session, kind) {
  return session.exports.easel_session_command(session.handle, kind, 0, 0, 0, 0, 0, 0, 0, 0, 0, Date.now());
}

test('every command the table declares is one the module knows, and the module knows no other', () => {
  const session = easel.openSession(hello, 1000);
  const kinds = Object.values(table.commands).map((command) => command.kind);
  assert.equal(new Set(kinds).size, kinds.length, 'no two names share a kind');
  for (const [name, { kind }] of Object.entries(table.commands)) {
    assert.notEqual(commandAnswer(session, kind), table.status.unknown, `${name} (${kind}) is a command of the module`);
  }
  const largest = Math.max(...kinds);
  for (const kind of [0, -1, largest + 1, 1000]) assert.equal(commandAnswer(session, kind), table.status.unknown, `kind ${kind}`);
  for (let kind = 1; kind <= largest; kind++) assert.ok(kinds.includes(kind), `kind ${kind} has a name`);
  const slots = new Set(['integer', 'a', 'b', 'c', 'd', 'text', 'extra']);
  for (const [name, { args }] of Object.entries(table.commands)) {
    const used = Object.values(args);
    assert.ok(used.every((slot) => slots.has(slot)), `${name}'s slots are the bridge's`);
    assert.equal(new Set(used).size, used.length, `${name} fills each slot once`);
  }
  session.close();
});

test('every gesture the table declares is one the module knows, and the module knows no other', () => {
  const session = easel.openSession(hello, 1000);
  const raw = (kind) => session.exports.easel_session_gesture(session.handle, kind, 1, 1, 0, Number.NaN, 1000);
  const kinds = Object.values(table.gestures);
  assert.deepEqual([...kinds].sort((a, b) => a - b), kinds.map((_, index) => index + 1), 'kinds 1… in order');
  for (const [name, kind] of Object.entries(table.gestures)) {
    assert.notEqual(raw(kind), table.status.unknown, `${name} (${kind})`);
  }
  for (const kind of [0, kinds.length + 1, 99]) assert.equal(raw(kind), table.status.unknown, `kind ${kind}`);
  assert.throws(() => session.gesture('wave'), /no gesture "wave"/);
  session.close();
});

test('named arguments reach the slots the bridge reads, and a name the table lacks throws', () => {
  const session = easel.openSession(hello, 1000);
  const given = [];
  session.command = (kind, slots) => { given.push([kind, slots]); return true; };
  session.perform('placeText', { text: 'hi', font: 'DejaVu Serif', x: 1, y: 2, size: 3, style: 2, alignment: 1 });
  session.perform('selectPlaced', { on: true });
  assert.deepEqual(given, [
    [table.commands.placeText.kind, { text: 'hi', extra: 'DejaVu Serif', a: 1, b: 2, c: 3, integer: 2, d: 1 }],
    [table.commands.selectPlaced.kind, { integer: 1 }],
  ]);
  assert.throws(() => session.perform('fly'), /no command "fly"/);
  assert.throws(() => session.perform('pan', { x: 1 }), /takes no "x"/);
  session.close();
});

test('one convention for what a call answers: done 0, refused -1, unknown -2, out of range -3; a refusal is false', () => {
  assert.deepEqual(table.status, { done: 0, refused: -1, unknown: -2, outOfRange: -3 });
  const session = easel.openSession(hello, 1000);
  assert.equal(session.perform('pan', { dx: Number.NaN, dy: 0 }), false, 'the editor refuses a NaN');
  assert.equal(commandAnswer(session, table.commands.pan.kind), table.status.done);
  assert.equal(session.exports.easel_session_command(session.handle, table.commands.shapeTool.kind, 0, 0, 9, 0, 0, 0, 0, 0, 0, 1),
    table.status.outOfRange, 'no shape 9');
  assert.equal(session.perform('shapeTool', { shape: 9 }), false, 'out of range is false too');
  assert.equal(easel.exports.easel_session_command(999, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), table.status.unknown, 'no session 999');
  assert.equal(easel.exports.easel_session_receive(999, 0, 0, 1), table.status.unknown);
  assert.throws(() => easel.inkOutline(new Uint8Array(), 99, 1, 0), /no tool 99/);
  assert.equal(session.perform('pan', { dx: 10, dy: 0 }), true);
  session.close();
});

test('the flags are distinct bits, and the session reads each by the table\'s name', () => {
  const bits = Object.values(table.flags);
  assert.ok(bits.every((bit) => bit > 0 && (bit & (bit - 1)) === 0), 'powers of two');
  assert.equal(new Set(bits).size, bits.length);
  const session = easel.openSession(hello, 1000);
  assert.deepEqual(Object.keys(session.flags).sort(), Object.keys(table.flags).sort());
  assert.equal(session.flags.hasSelection, false);
  session.perform('selectPlaced', { on: true });
  session.perform('placeEmoji', { x: 10, y: 10, size: 40, emoji: '🦊' });
  assert.equal(session.flags.hasSelection, true);
  assert.equal(session.flags.canUndo, true);
  session.close();
});

test('the enums are the model\'s names and raw values', () => {
  const { tool, shape, textStyle, alignment, fit, drawingAction, connectionState } = table.enums;
  assert.deepEqual(tool, { pen: 0, brush: 1, marker: 2, neon: 3, pencil: 4, eraser: 5, blur: 6 });
  assert.deepEqual(shape, { rectangle: 0, ellipse: 1, arrow: 2, star: 3, bubble: 4 });
  assert.deepEqual(textStyle, { regular: 0, outlined: 1, framed: 2 });
  assert.deepEqual(alignment, { left: 0, center: 1, right: 2 });
  assert.deepEqual(fit, { contain: 0, cover: 1, stretch: 2 });
  assert.deepEqual(drawingAction, { ink: 0, eraseObjects: 1, lasso: 2, shape: 3 });
  assert.deepEqual(connectionState, ['offline', 'connecting', 'connected', 'weak']);
});

test('a module loaded without checks answers the same', async () => {
  const unchecked = await instantiateEasel(wasmBytes);
  assert.deepEqual(unchecked.interface, table);
});
