// The page's one table of actions: every button, menu item and shortcut
// reads it, so they cannot drift apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ACTIONS, action, actionFor, describe, title } from '../Page/actions.mjs';
import { TOOLS, tool } from '../Page/tools.mjs';
import { easel } from './support.mjs';

const COMMANDS = easel.interface.commands;

const key = (key, modifiers = {}) => ({
  key, code: modifiers.code ?? '', ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...modifiers,
});

test('every action has its own ID, and no two actions share a shortcut', () => {
  assert.equal(new Set(ACTIONS.map((found) => found.id)).size, ACTIONS.length);
  const shortcuts = ACTIONS.flatMap((found) => found.shortcuts.map((shortcut) => JSON.stringify(shortcut)));
  assert.equal(new Set(shortcuts).size, shortcuts.length);
});

test('each shortcut people know finds its action, and only that one', () => {
  const cases = [
    [key('z', { ctrlKey: true }), 'undo'],
    [key('z', { metaKey: true }), 'undo'],
    [key('Z', { ctrlKey: true, shiftKey: true }), 'redo'],
    [key('y', { ctrlKey: true }), 'redo'],
    [key('d', { ctrlKey: true }), 'duplicate'],
    [key('Delete'), 'delete'],
    [key('Backspace'), 'delete'],
    [key(']', { code: 'BracketRight' }), 'bring-forward'],
    [key('}', { code: 'BracketRight', shiftKey: true }), 'bring-to-front'],
    [key('[', { code: 'BracketLeft' }), 'send-backward'],
    [key('{', { code: 'BracketLeft', shiftKey: true }), 'send-to-back'],
    [key('=', { code: 'Equal', ctrlKey: true }), 'zoom-in'],
    [key('-', { code: 'Minus', ctrlKey: true }), 'zoom-out'],
    [key(')', { code: 'Digit0', shiftKey: true }), 'zoom-100'],
    [key('!', { code: 'Digit1', shiftKey: true }), 'fit-content'],
    [key('@', { code: 'Digit2', shiftKey: true }), 'fit-selection'],
  ];
  for (const [event, id] of cases) assert.equal(actionFor(event)?.id, id, JSON.stringify(event));
  assert.equal(actionFor(key('z')), undefined, 'a plain z types, it does not undo');
  assert.equal(actionFor(key('z', { ctrlKey: true, altKey: true })), undefined, 'Alt leaves shortcuts alone');
  assert.equal(actionFor(key('1', { code: 'Digit1' })), undefined);
});

/** A session that records what is performed, refusing names and arguments the module's commands lack. */
function recording(calls) {
  return {
    perform: (name, named) => {
      assert.ok(COMMANDS[name], `no command ${name}`);
      for (const argument of Object.keys(named ?? {})) assert.ok(COMMANDS[name].args[argument], `${name} takes no ${argument}`);
      calls.push([name, named]);
      return true;
    },
  };
}

test('actions run the command they name, with the view point for zooms', () => {
  const calls = [];
  const session = recording(calls);
  const context = { session, centre: () => ({ x: 400, y: 300 }) };
  action('undo').run(context);
  action('bring-to-front').run(context);
  action('zoom-in').run(context);
  action('zoom-100').run(context);
  action('fit-selection').run(context);
  assert.deepEqual(calls, [
    ['undo', undefined], ['bringToFront', undefined],
    ['zoomBy', { x: 400, y: 300, factor: 1.25 }], ['zoomTo', { x: 400, y: 300, zoom: 1 }],
    ['fitSelection', undefined],
  ]);
});

test('every action runs a command the module has, a page dialog or a tool', () => {
  for (const found of ACTIONS) {
    const calls = [];
    let page = false;
    const session = recording(calls);
    found.run({
      session, centre: () => ({ x: 0, y: 0 }), zoom: () => 1, showShortcuts: () => { page = true; },
      setTool: (id) => { tool(id); page = true; }, editText: () => { page = true; return true; },
      clipboard: () => { page = true; return true; }, showExport: () => { page = true; },
    });
    assert.ok(calls.length === 1 || page, `${found.id} runs one command or a page's own`);
  }
});

test('each tool has its letter, and Escape goes back to Select with nothing selected', () => {
  for (const { id, key: letter } of TOOLS) {
    let picked;
    actionFor(key(letter)).run({ setTool: (chosen) => { picked = chosen; } });
    assert.equal(picked, id, `${letter} picks ${id}`);
  }
  assert.deepEqual(TOOLS.map((found) => found.key), ['v', 'h', 'p', 'e', 'l', 'r', 't']);
  const calls = [];
  const session = recording(calls);
  actionFor(key('Escape')).run({ session, setTool: (chosen) => calls.push(chosen) });
  assert.deepEqual(calls, ['select', ['clearSelection', undefined]]);
  assert.equal(actionFor(key('v', { ctrlKey: true })).id, 'paste', 'Ctrl V pastes; V alone is the Select tool');
  assert.ok(['copy', 'cut', 'paste'].every((id) => action(id).native), 'the browser\'s clipboard events do the work');
});

test('arrows nudge the selection by a screen pixel, Shift by ten (the module makes it a pixel at any zoom)', () => {
  const calls = [];
  const session = recording(calls);
  const context = { session, centre: () => ({ x: 0, y: 0 }) };
  actionFor(key('ArrowLeft', { code: 'ArrowLeft' })).run(context);
  actionFor(key('ArrowDown', { code: 'ArrowDown', shiftKey: true })).run(context);
  assert.deepEqual(calls, [['nudge', { dx: -1, dy: 0 }], ['nudge', { dx: 0, dy: 10 }]]);
  assert.equal(actionFor(key('a', { ctrlKey: true })).id, 'select-all');
  assert.equal(actionFor(key('Escape')).id, 'select-none');
  assert.equal(actionFor(key('?', { shiftKey: true })).id, 'shortcuts');
});

test('every button and menu item of the page names an action in the table', () => {
  const page = readFileSync(new URL('../Page/canvas.html', import.meta.url), 'utf8');
  const named = [...page.matchAll(/data-action="([^"]+)"/g)].map((match) => match[1]);
  assert.ok(named.length >= 10);
  for (const id of named) assert.doesNotThrow(() => action(id), id);
});

test('shortcuts read as people write them, on a Mac with ⌘', () => {
  assert.equal(describe(action('redo').shortcuts[0]), 'Ctrl Shift Z');
  assert.equal(describe(action('redo').shortcuts[0], true), '⌘ Shift Z');
  assert.equal(describe(action('bring-to-front').shortcuts[0]), 'Shift ]');
  assert.equal(title(action('fit-content')), 'Zoom to fit (Shift 1)');
  assert.equal(title(action('reset-view')), 'Reset view');
});
