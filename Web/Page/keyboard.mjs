// The action table (actions.mjs) put to work: every button and menu item
// that names an action runs it and shows its shortcut, the keyboard finds
// actions by their shortcuts, and the list of shortcuts (`?`) is written
// from the same table. Buttons of actions that cannot run are disabled, or
// hidden when they say so.
import { ACTIONS, action, actionFor, describe, title } from './actions.mjs';

/** Whether a key press belongs to a field the person is typing into. */
export function isTyping(target) {
  return target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement
    || target instanceof HTMLSelectElement;
}

/**
 * Wires the actions. `context` is what actions act on (actions.mjs's
 * ActionContext); `before()` runs before any action (a gesture in flight
 * settles); `changed()` after; `isBlocked()` says a dialog has the keys;
 * `onMenuItem()` runs after a menu item (its menu closes); `onEscape()`
 * may take Escape first (an open menu closes) and answers whether it did.
 * Returns `update(flags)`, for each redraw.
 */
export function attachActions({
  session, context, before, changed, isBlocked, onMenuItem, onEscape = () => false,
  mac = /Mac|iPhone|iPad/.test(navigator.platform),
}) {
  const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
  for (const listed of ACTIONS.filter((found) => found.shortcuts.length)) {
    const row = $('shortcuts-list').insertRow();
    row.insertCell().textContent = listed.label;
    row.insertCell().append(...listed.shortcuts.map((shortcut) =>
      Object.assign(document.createElement('kbd'), { textContent: describe(shortcut, mac) })));
  }
  const run = (found) => {
    before();
    if (found.enabled && !found.enabled(session.flags)) return;
    found.run(context);
    changed();
  };
  const nodes = /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('[data-action]'));
  const elements = [...nodes].map((node) => {
    const found = action(node.dataset.action);
    const isMenuItem = node.getAttribute('role') === 'menuitem';
    if (isMenuItem) {
      node.textContent = found.label;
      if (found.shortcuts.length) {
        node.append(Object.assign(document.createElement('kbd'), { textContent: describe(found.shortcuts[0], mac) }));
      }
    } else {
      node.title = title(found, mac);
    }
    node.addEventListener('click', () => {
      run(found);
      if (isMenuItem) onMenuItem();
    });
    return { node, action: found, hides: node.hasAttribute('data-hide-when-disabled') };
  });
  document.addEventListener('keydown', (event) => {
    if (isTyping(event.target) || isBlocked()) return;
    if (event.key === 'Escape' && onEscape()) return;
    const found = actionFor(event);
    // Copy, cut and paste go on as the browser's clipboard events.
    if (!found || found.native) return;
    event.preventDefault();
    run(found);
  });
  return (flags) => {
    for (const element of elements) {
      const enabled = element.action.enabled?.(flags) ?? true;
      if (element.hides) element.node.hidden = !enabled; else element.node.disabled = !enabled;
    }
  };
}
