// The page's menus and the clear button that asks once more on itself.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { CLEAR_CONFIRM_MS, confirmingButton, menu } from '../Page/menus.mjs';

/** An element with listeners, `hidden`, attributes and text. */
function fakeElement(children = []) {
  const listeners = {};
  const attributes = {};
  return {
    hidden: true, textContent: 'Clear all', children,
    addEventListener: (type, listener) => { (listeners[type] ??= []).push(listener); },
    fire: (type, event = {}) => { for (const listener of listeners[type] ?? []) listener({ stopPropagation() {}, ...event }); },
    setAttribute: (name, value) => { attributes[name] = value; },
    getAttribute: (name) => attributes[name],
    contains(node) { return node === this || children.includes(node); },
  };
}

test('a menu opens and closes on its button, and a press outside it closes it', () => {
  const documentListeners = [];
  globalThis.document = /** @type {any} */ ({ addEventListener: (type, listener) => documentListeners.push([type, listener]) });
  const button = fakeElement();
  const items = fakeElement();
  const holder = fakeElement([button, items]);
  const shown = menu(button, items, holder);
  const press = (target) => { for (const [type, listener] of documentListeners) if (type === 'pointerdown') listener({ target }); };
  button.fire('click');
  assert.equal(shown.isOpen(), true);
  assert.equal(button.getAttribute('aria-expanded'), 'true');
  press(items);
  assert.equal(shown.isOpen(), true, 'a press inside keeps it open');
  press(fakeElement());
  assert.equal(shown.isOpen(), false, 'a press outside closes it');
  assert.equal(button.getAttribute('aria-expanded'), 'false');
  button.fire('click');
  button.fire('click');
  assert.equal(shown.isOpen(), false, 'its button closes it again');
  delete globalThis.document;
});

test('clearing takes a second press within the wait, and the button says so meanwhile', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const button = fakeElement();
  let cleared = 0;
  confirmingButton(button, 'Really clear?', () => { cleared += 1; });
  button.fire('click');
  assert.equal(button.textContent, 'Really clear?');
  assert.equal(cleared, 0, 'one press clears nothing');
  mock.timers.tick(CLEAR_CONFIRM_MS + 1);
  assert.equal(button.textContent, 'Clear all', 'the question goes away');
  button.fire('click');
  button.fire('click');
  assert.equal(cleared, 1, 'two presses in time clear');
  assert.equal(button.textContent, 'Clear all');
  mock.timers.reset();
});
