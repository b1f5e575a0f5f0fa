// The page's two menus (☰: the background and clearing everything; the
// zoom level: zoom in, out, 100 %, fit) and the clear button that asks once
// more on itself instead of in a dialog box. A menu closes on a press
// outside it, on Escape, and after one of its items ran.
import { parseHex } from './colour.mjs';

/** How long "Really clear?" waits for the second press (ms). */
export const CLEAR_CONFIRM_MS = 3000;

/**
 * A menu shown and hidden by its button, closed by a press outside
 * `holder`. Returns `{ close, isOpen }`.
 * @param {HTMLElement} button @param {HTMLElement} menu @param {HTMLElement} holder
 */
export function menu(button, menu, holder) {
  const close = () => {
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  };
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    menu.hidden = !menu.hidden;
    button.setAttribute('aria-expanded', String(!menu.hidden));
  });
  document.addEventListener('pointerdown', (event) => {
    if (!menu.hidden && !holder.contains(/** @type {Node} */ (event.target))) close();
  });
  return { close, isOpen: () => !menu.hidden };
}

/**
 * A button that runs `run` on its second press within CLEAR_CONFIRM_MS,
 * saying `asking` in between.
 * @param {HTMLElement} button @param {string} asking @param {() => void} run
 */
export function confirmingButton(button, asking, run) {
  const label = button.textContent;
  let armed = null;
  button.addEventListener('click', () => {
    if (armed) {
      clearTimeout(armed);
      armed = null;
      button.textContent = label;
      run();
    } else {
      button.textContent = asking;
      armed = setTimeout(() => { armed = null; button.textContent = label; }, CLEAR_CONFIRM_MS);
    }
  });
}

/**
 * Wires the page's menus. Returns `{ pageMenu, zoomMenu }`, each `{ close, isOpen }`.
 * @param {{ perform: (name: string, named?: Record<string, any>) => void }} options
 */
export function attachMenus({ perform }) {
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const pageMenu = menu($('page-menu-button'), $('page-menu'), $('page-menu-holder'));
  const zoomMenu = menu($('zoom-level'), $('zoom-menu'), $('zoom'));
  $('zoom-level').title = 'Zoom: in, out, 100 %, to fit, to the selection';
  confirmingButton($('clear'), 'Really clear?', () => perform('clearAll'));
  const colour = /** @type {HTMLInputElement} */ ($('background-color'));
  colour.addEventListener('change', () => perform('backgroundColor', { color: (parseHex(colour.value) ?? 0xffffffff) | 0 }));
  $('background-none').addEventListener('click', () => perform('backgroundNoImage'));
  return { pageMenu, zoomMenu };
}
