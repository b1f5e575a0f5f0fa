// Text typed in place: an editor over where the text is or will be, looking
// as it will look — its font, size at this zoom, colour, turn, style and
// alignment — while the text itself hides beneath it. Enter, Escape or a
// click elsewhere keeps what was typed (as in tldraw and Excalidraw);
// Shift+Enter starts a new line. A new text is placed by one command and an
// edit is one command: each one step to undo.
import { ALIGNMENTS, TEXT_STYLES } from './tools.mjs';
import { formatHex } from './colour.mjs';

/** Lines are this many ems apart, as the renderer draws them. */
const LINE_HEIGHT = 1.25;

export class TextEditing {
  /**
   * `editor` is the page's textarea; `toolbar` gives the Text tool's
   * choices; `perform(kind, options)` runs a command; `hide(id, hidden)`
   * hides an entity's drawing while its text is edited.
   */
  constructor({ session, editor, toolbar, perform, hide }) {
    this.session = session;
    this.editor = editor;
    this.toolbar = toolbar;
    this.perform = perform;
    this.hide = hide;
    this.editing = null;
    this.measurer = document.createElement('canvas').getContext('2d');
    editor.addEventListener('input', () => this.fit());
    editor.addEventListener('keydown', (event) => {
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Escape') {
        event.preventDefault();
        this.commit();
      }
      // Nothing typed here is a shortcut of the page's.
      event.stopPropagation();
    });
    editor.addEventListener('blur', () => this.commit());
  }

  get active() { return this.editing !== null; }

  /** A new text centred at a canvas point, with the Text tool's choices. */
  startNew(point) {
    const { choices } = this.toolbar;
    this.open({
      at: point, value: '', font: choices.font, px: choices.textSize * this.session.viewport()[2], rotation: 0,
      style: choices.textStyle, align: choices.align, color: this.toolbar.rgba(), size: choices.textSize, isNew: true,
    });
  }

  /** The one selected text, edited where it is; false when there is none. */
  startSelected() {
    const text = this.session.selectedTextEntity();
    const onScreen = this.session.selectionFrame();
    if (!text || !onScreen) return false;
    const lines = text.text.split('\n').length;
    const [id] = this.session.selection;
    this.hide(id, true);
    this.open({
      at: { x: onScreen.x, y: onScreen.y }, value: text.text, font: text.font, id,
      px: onScreen.height / (lines * LINE_HEIGHT), rotation: onScreen.rotation,
      style: TEXT_STYLES[text.style] ?? 'regular', align: ALIGNMENTS[text.alignment] ?? 'left', color: text.color,
      isNew: false,
    });
    return true;
  }

  open(editing) {
    if (this.editing) this.commit();
    this.editing = editing;
    const { editor } = this;
    // Opaque: the editor shows the letters, the text itself their opacity.
    const ink = formatHex((editing.color | 0xff) >>> 0);
    editor.value = editing.value;
    Object.assign(editor.style, {
      left: `${editing.at.x}px`, top: `${editing.at.y}px`, fontFamily: `"${editing.font}"`,
      fontSize: `${editing.px}px`, color: editing.style === 'outlined' ? '#ffffff' : ink, textAlign: editing.align,
      transform: `translate(-50%, -50%) rotate(${editing.rotation}rad)`,
    });
    editor.style.setProperty('--ink', ink);
    editor.style.setProperty('--stroke', `${Math.max(1, editing.px / 12)}px`);
    editor.style.setProperty('--frame', `${Math.max(1, editing.px / 16)}px`);
    editor.classList.toggle('outlined', editing.style === 'outlined');
    editor.classList.toggle('framed', editing.style === 'framed');
    this.fit();
    editor.hidden = false;
    editor.focus();
    editor.select();
  }

  /** The editor as large as what is typed in it. */
  fit() {
    if (!this.editing) return;
    const { px, font } = this.editing;
    this.measurer.font = `${px}px "${font}"`;
    const lines = this.editor.value.split('\n');
    const width = Math.max(px * 0.6, ...lines.map((line) => this.measurer.measureText(line).width));
    this.editor.style.width = `${Math.ceil(width + px * 0.3)}px`;
    this.editor.style.height = `${Math.ceil(lines.length * LINE_HEIGHT * px + 2)}px`;
  }

  /** Keeps what was typed: a new text placed, or the selected one changed. */
  commit() {
    const editing = this.editing;
    if (!editing) return;
    this.editing = null;
    const text = this.editor.value;
    if (editing.isNew && text.trim() !== '') {
      this.perform('placeText', {
        x: editing.at.x, y: editing.at.y, size: editing.size, text, font: editing.font,
        style: TEXT_STYLES.indexOf(editing.style), alignment: ALIGNMENTS.indexOf(editing.align),
      });
    } else if (!editing.isNew && text !== editing.value) {
      this.perform('editSelectedText', { text });
    }
    this.editor.hidden = true;
    if (editing.id) this.hide(editing.id, false);
    if (editing.isNew) this.toolbar.setTool('select');
  }

  /**
   * A double click on the canvas with the Select tool: on a text, that text
   * alone is edited; on empty canvas, a new text starts there; on anything
   * else, nothing. `changed()` redraws.
   * @param {SVGSVGElement} canvas @param {() => void} changed
   */
  editOnDoubleClick(canvas, changed) {
    canvas.addEventListener('dblclick', (event) => {
      if (this.toolbar.pressMode !== 'select') return;
      const box = canvas.getBoundingClientRect();
      const point = { x: event.clientX - box.left, y: event.clientY - box.top };
      // The canvas holds the pointer while pressed, so the event's target is
      // the canvas: what lies under the point says what was double-clicked.
      const under = document.elementsFromPoint(event.clientX, event.clientY);
      if (under.some((element) => element.closest('#handles .handle'))) return;
      const group = under.map((element) => element.closest('#entities > g')).find(Boolean);
      if (group?.classList.contains('text')) {
        // The two clicks before toggled it: it alone is selected, then edited.
        this.session.perform('clearSelection');
        this.session.gesture('tap', point.x, point.y);
        this.startSelected();
        changed();
      } else if (!group) {
        this.startNew(point);
      }
    });
  }
}
