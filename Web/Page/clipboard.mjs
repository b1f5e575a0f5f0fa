// Copy, cut and paste through the system clipboard, in the page's own
// format (a clipping: Protocol/README.md, "Clippings"), so entities go
// between documents and between windows; what is pasted becomes new
// entities. The keyboard's Ctrl/⌘ C, X and V reach here as the browser's
// clipboard events; images and plain text paste too.

/** Whether clipboard text is one of the page's clippings. */
export function isClipping(text) {
  return /^\s*\{\s*"easel"\s*:\s*"clipping"/.test(text);
}

/** The longest plain text pasted as a text entity (the model's limit). */
export const TEXT_BYTES = 16 * 1024;

/** Plain text as a new text entity's content: trimmed, at most `TEXT_BYTES` of UTF-8, whole characters. */
export function pastedText(text) {
  const characters = [...text.replace(/\r\n?/g, '\n').trim()];
  const encoder = new TextEncoder();
  let bytes = 0;
  let kept = 0;
  for (const character of characters) {
    bytes += encoder.encode(character).length;
    if (bytes > TEXT_BYTES) break;
    kept += 1;
  }
  return characters.slice(0, kept).join('');
}

/**
 * Listens for the browser's clipboard events. `spot()` is where a paste
 * goes (the pointer over the canvas, else the middle of the view);
 * `placeFiles(files, spot)` places images; `placeText(text, spot)` a text.
 */
export function attachClipboard({ session, changed, spot, placeFiles, placeText, fail }) {
  const typing = (event) => event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement;
  function copy(event, cut) {
    if (typing(event)) return;
    const clipping = session.copy();
    if (!clipping) return;
    event.preventDefault();
    event.clipboardData.setData('text/plain', clipping);
    if (cut) session.perform('deleteSelection');
    changed();
  }
  document.addEventListener('copy', (event) => copy(event, false));
  document.addEventListener('cut', (event) => copy(event, true));
  document.addEventListener('paste', (event) => {
    if (typing(event)) return;
    const files = [...(event.clipboardData?.files ?? [])];
    const text = event.clipboardData?.getData('text/plain') ?? '';
    if (files.length === 0 && text.trim() === '') return;
    event.preventDefault();
    const at = spot();
    if (files.length) {
      placeFiles(files, at);
    } else if (isClipping(text)) {
      if (!session.perform('paste', { clipping: text, x: at.x, y: at.y })) fail('The pasted entities could not be read.');
    } else {
      placeText(pastedText(text), at);
    }
    changed();
  });
}
