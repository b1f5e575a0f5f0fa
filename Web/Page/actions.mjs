// Every action the page offers, once: its label, its shortcut, when it can
// run and what it does. The toolbar's buttons and menu items (by
// `data-action`), the keyboard and the shortcut list all read this table,
// so a button and its shortcut cannot drift apart. No DOM and no imports
// here but the tools' table: Node tests load it as it is, and the session
// comes in the context (its commands go by name: the module's interface).
import { TOOLS } from './tools.mjs';

/**
 * A shortcut: `key` (KeyboardEvent.key, lower case) or `code`
 * (KeyboardEvent.code, for keys whose `key` changes with Shift), whether
 * Ctrl or ⌘ is held (`mod`), and whether Shift is (`shift`; undefined: either).
 * @typedef {{ key?: string, code?: string, mod: boolean, shift?: boolean }} Shortcut
 */

/**
 * What an action is given to act on: the session, the screen point the
 * view zooms around, the tools and the page's own dialogs.
 * @typedef {{ session?: any, centre?: () => { x: number, y: number },
 *   setTool?: (id: string) => void, editText?: () => boolean,
 *   clipboard?: (verb: string) => boolean, showExport?: () => void,
 *   showShortcuts?: () => void }} ActionContext
 */

/** How far an arrow key moves the selection, in screen pixels; Shift: ten times. */
export const NUDGE = 1;

/** How much one step of the zoom buttons and keys zooms. */
export const ZOOM_STEP = 1.25;

const command = (name) => ({ session }) => session.perform(name);
// Screen pixels: the module moves the selection as far on screen whatever the zoom.
const nudge = (dx, dy) => ({ session }) => session.perform('nudge', { dx, dy });
const arrow = (id, label, code, dx, dy) => [
  { id, label, shortcuts: [{ code, mod: false, shift: false }],
    enabled: (flags) => flags.hasSelection, run: nudge(dx * NUDGE, dy * NUDGE) },
  { id: `${id}-far`, label: `${label}, ten times as far`, shortcuts: [{ code, mod: false, shift: true }],
    enabled: (flags) => flags.hasSelection, run: nudge(dx * NUDGE * 10, dy * NUDGE * 10) },
];
const zoom = (factor) => ({ session, centre }) => {
  const { x, y } = centre();
  return session.perform('zoomBy', { x, y, factor });
};

/**
 * @type {{ id: string, label: string, shortcuts: Shortcut[], native?: boolean,
 *   enabled?: (flags: Record<string, boolean>) => boolean, run: (context: ActionContext) => unknown }[]}
 */
export const ACTIONS = [
  { id: 'undo', label: 'Undo', shortcuts: [{ key: 'z', mod: true, shift: false }],
    enabled: (flags) => flags.canUndo, run: command('undo') },
  { id: 'redo', label: 'Redo', shortcuts: [{ key: 'z', mod: true, shift: true }, { key: 'y', mod: true }],
    enabled: (flags) => flags.canRedo, run: command('redo') },
  { id: 'duplicate', label: 'Duplicate', shortcuts: [{ key: 'd', mod: true }],
    enabled: (flags) => flags.hasSelection, run: command('duplicateSelection') },
  // Native: the keys go on to the browser, whose clipboard events
  // (clipboard.mjs) do the work; the list of shortcuts shows them.
  { id: 'copy', label: 'Copy', shortcuts: [{ key: 'c', mod: true, shift: false }], native: true,
    enabled: (flags) => flags.hasSelection, run: ({ clipboard }) => clipboard?.('copy') ?? false },
  { id: 'cut', label: 'Cut', shortcuts: [{ key: 'x', mod: true, shift: false }], native: true,
    enabled: (flags) => flags.hasSelection, run: ({ clipboard }) => clipboard?.('cut') ?? false },
  { id: 'paste', label: 'Paste', shortcuts: [{ key: 'v', mod: true, shift: false }], native: true,
    run: ({ clipboard }) => clipboard?.('paste') ?? false },
  { id: 'delete', label: 'Delete', shortcuts: [{ key: 'delete', mod: false }, { key: 'backspace', mod: false }],
    enabled: (flags) => flags.hasSelection, run: command('deleteSelection') },
  { id: 'bring-to-front', label: 'Bring to front', shortcuts: [{ code: 'BracketRight', mod: false, shift: true }],
    enabled: (flags) => flags.canBringToFront, run: command('bringToFront') },
  { id: 'bring-forward', label: 'Bring forward', shortcuts: [{ code: 'BracketRight', mod: false, shift: false }],
    enabled: (flags) => flags.canBringForward, run: command('bringForward') },
  { id: 'send-backward', label: 'Send backward', shortcuts: [{ code: 'BracketLeft', mod: false, shift: false }],
    enabled: (flags) => flags.canSendBackward, run: command('sendBackward') },
  { id: 'send-to-back', label: 'Send to back', shortcuts: [{ code: 'BracketLeft', mod: false, shift: true }],
    enabled: (flags) => flags.canSendToBack, run: command('sendToBack') },
  { id: 'zoom-in', label: 'Zoom in', shortcuts: [{ code: 'Equal', mod: true }, { code: 'NumpadAdd', mod: true }],
    run: zoom(ZOOM_STEP) },
  { id: 'zoom-out', label: 'Zoom out', shortcuts: [{ code: 'Minus', mod: true }, { code: 'NumpadSubtract', mod: true }],
    run: zoom(1 / ZOOM_STEP) },
  { id: 'zoom-100', label: 'Zoom to 100 %', shortcuts: [{ code: 'Digit0', mod: false, shift: true }],
    run: ({ session, centre }) => {
      const { x, y } = centre();
      return session.perform('zoomTo', { x, y, zoom: 1 });
    } },
  { id: 'fit-content', label: 'Zoom to fit', shortcuts: [{ code: 'Digit1', mod: false, shift: true }],
    run: command('fitContent') },
  { id: 'fit-selection', label: 'Zoom to selection', shortcuts: [{ code: 'Digit2', mod: false, shift: true }],
    enabled: (flags) => flags.hasSelection, run: command('fitSelection') },
  { id: 'reset-view', label: 'Reset view', shortcuts: [], run: command('resetViewport') },
  { id: 'edit-text', label: 'Edit the selected text', shortcuts: [{ key: 'enter', mod: false, shift: false }],
    enabled: (flags) => flags.oneText, run: ({ editText }) => editText?.() ?? false },
  { id: 'select-all', label: 'Select all', shortcuts: [{ key: 'a', mod: true }], run: command('selectAll') },
  { id: 'select-none', label: 'Back to Select, select nothing', shortcuts: [{ key: 'escape', mod: false }],
    run: ({ session, setTool }) => {
      setTool?.('select');
      return session.perform('clearSelection');
    } },
  ...TOOLS.map(({ id, label, key }) => ({
    id: `tool-${id}`, label: `${label} tool`, shortcuts: [{ key, mod: false, shift: false }],
    run: ({ setTool }) => { setTool?.(id); return true; },
  })),
  ...arrow('nudge-left', 'Move left', 'ArrowLeft', -1, 0),
  ...arrow('nudge-right', 'Move right', 'ArrowRight', 1, 0),
  ...arrow('nudge-up', 'Move up', 'ArrowUp', 0, -1),
  ...arrow('nudge-down', 'Move down', 'ArrowDown', 0, 1),
  { id: 'export', label: 'Export an image', shortcuts: [{ key: 'e', mod: true, shift: true }],
    run: ({ showExport }) => { showExport?.(); return true; } },
  { id: 'shortcuts', label: 'Keyboard shortcuts', shortcuts: [{ key: '?', mod: false }],
    run: ({ showShortcuts }) => { showShortcuts?.(); return true; } },
];

const byId = new Map(ACTIONS.map((action) => [action.id, action]));

/** The action with this ID; throws for an unknown one (a typo in the page). */
export function action(id) {
  const found = byId.get(id);
  if (!found) throw new Error(`no action "${id}"`);
  return found;
}

/** Whether a key event is this shortcut. */
export function matches(shortcut, event) {
  const mod = event.ctrlKey || event.metaKey;
  if (mod !== shortcut.mod || event.altKey) return false;
  if (shortcut.shift !== undefined && shortcut.shift !== event.shiftKey) return false;
  return shortcut.code ? event.code === shortcut.code : event.key.toLowerCase() === shortcut.key;
}

/** The action a key event asks for, or undefined. */
export function actionFor(event) {
  return ACTIONS.find((candidate) => candidate.shortcuts.some((shortcut) => matches(shortcut, event)));
}

const KEY_NAMES = {
  BracketLeft: '[', BracketRight: ']', Equal: '+', Minus: '−', NumpadAdd: 'Num +', NumpadSubtract: 'Num −',
  Digit0: '0', Digit1: '1', Digit2: '2', delete: 'Delete', backspace: 'Backspace', escape: 'Escape', enter: 'Enter',
  ArrowLeft: '←', ArrowRight: '→', ArrowUp: '↑', ArrowDown: '↓',
};

/** A shortcut as people read it: `Ctrl Shift Z`, `⌘ Shift Z` on a Mac. */
export function describe(shortcut, mac = false) {
  const parts = [];
  if (shortcut.mod) parts.push(mac ? '⌘' : 'Ctrl');
  if (shortcut.shift) parts.push('Shift');
  const key = shortcut.code ?? shortcut.key;
  parts.push(KEY_NAMES[key] ?? key.toUpperCase());
  return parts.join(' ');
}

/** An action's label with its first shortcut, for a button's title. */
export function title(action, mac = false) {
  return action.shortcuts.length ? `${action.label} (${describe(action.shortcuts[0], mac)})` : action.label;
}
