// Text typed in place: an editor over where the text is or will be, looking
// as it will look — its font, size at this zoom, colour, turn, style and
// alignment — while the text itself hides beneath it. What is typed,
// deleted, pasted or composed becomes the text's character ops once a
// frame, so peers see it as it is typed; what peers type merges into the
// editor as it arrives, and the caret keeps to the character it follows.
// A new text is placed with its first character. Enter, Escape or a click
// elsewhere ends typing (as in tldraw and Excalidraw); Shift+Enter starts a
// new line. Undo takes typing back a word at a time.
import { ALIGNMENTS, TEXT_STYLES } from './tools.mjs';
import { formatHex } from './colour.mjs';
import { placeInLines, scalarsBefore, textEdit, utf16Offset } from './text-positions.mjs';

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
    /** The canvas view, which knows what tiles draw. @type {any} */
    this.view = null;
    this.editing = null;
    /** While an input method composes, what the editor shows is not typed yet. */
    this.composing = false;
    this.flushPending = false;
    this.measurer = document.createElement('canvas').getContext('2d');
    editor.addEventListener('input', () => {
      this.fit();
      this.flushSoon();
    });
    for (const type of ['select', 'keyup', 'pointerup']) editor.addEventListener(type, () => this.flushSoon());
    editor.addEventListener('compositionstart', () => {
      this.flush();
      this.composing = true;
    });
    editor.addEventListener('compositionend', () => {
      this.composing = false;
      this.flush();
    });
    editor.addEventListener('keydown', (event) => {
      if ((event.key === 'Enter' && !event.shiftKey && !event.isComposing) || event.key === 'Escape') {
        event.preventDefault();
        this.commit();
      } else if ((event.ctrlKey || event.metaKey) && !event.altKey && ['z', 'Z', 'y'].includes(event.key)) {
        // The text's own undo, a word at a time, never the textarea's.
        event.preventDefault();
        this.undo(event.key === 'y' || event.shiftKey ? 'redo' : 'undo');
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
    document.body.classList.add('typing');
    editor.focus();
    editor.select();
    /** The text as the model has it, as far as this editor knows. */
    editing.synced = editing.value;
    editing.caretSent = null;
    if (!editing.isNew) this.shareCaret();
  }

  flushSoon() {
    if (this.flushPending || !this.editing) return;
    this.flushPending = true;
    requestAnimationFrame(() => {
      this.flushPending = false;
      this.flush();
    });
  }

  /**
   * What was typed since the last flush becomes ops: a new text is placed
   * with its first character, and then each change is one replace of the
   * characters it changed. Also called before anything from the server is
   * applied, so what is typed always applies to the text it was typed into.
   */
  flush() {
    const editing = this.editing;
    if (!editing || this.composing) return;
    const value = this.editor.value;
    if (value !== editing.synced) {
      if (editing.isNew && !editing.id) {
        if (value.trim() === '') return;
        this.perform('placeText', {
          x: editing.at.x, y: editing.at.y, size: editing.size, text: value, font: editing.font,
          style: TEXT_STYLES.indexOf(editing.style), alignment: ALIGNMENTS.indexOf(editing.align),
        });
        [editing.id] = this.session.selection;
        if (editing.id) this.hide(editing.id, true);
        editing.synced = value;
      } else {
        this.replace(editing, value);
        const model = this.session.caret();
        if (model && model.text !== value) this.show(model); else editing.synced = value;
      }
    }
    if (editing.id) this.shareCaret();
  }

  /** The change from what the model has to what the editor shows, as one
   * replace of scalars. After a composition the model may have moved on
   * under it: the composed text then replaces what the caret held. */
  replace(editing, value) {
    const edit = textEdit(editing.synced, value, this.editor.selectionEnd);
    if (!edit) return;
    const model = this.session.caret();
    let start = scalarsBefore(editing.synced, edit.start);
    let end = scalarsBefore(editing.synced, edit.end);
    if (model && model.text !== editing.synced) {
      start = Math.min(model.anchor, model.head);
      end = Math.max(model.anchor, model.head);
    }
    this.perform('replaceSelectedText', { start, end, text: edit.inserted });
  }

  /** The editor's caret and selection to the model, for peers to see. */
  shareCaret() {
    const { editor, editing } = this;
    const forward = editor.selectionDirection !== 'backward';
    const [from, to] = [editor.selectionStart, editor.selectionEnd].map((offset) => scalarsBefore(editor.value, offset));
    const caret = forward ? { anchor: from, head: to } : { anchor: to, head: from };
    if (editing.caretSent?.anchor === caret.anchor && editing.caretSent?.head === caret.head) return;
    editing.caretSent = caret;
    this.session.placeCaret(caret);
  }

  /**
   * After the server's messages were applied: the text as it merged, with
   * the caret where the characters it follows are now. Typing ends when
   * the text is gone. Nothing changes under an input method composing.
   */
  refresh() {
    if (!this.editing?.id || this.composing) return;
    this.follow({ always: false });
  }

  /** The editor takes the model's text and caret (`always`, or when the
   * text differs); typing ends when the text is gone. */
  follow({ always }) {
    const model = this.session.caret();
    if (!model) this.close();
    else if (always || model.text !== this.editor.value) this.show(model);
  }

  /** The editor shows the model's text, the caret at the model's places. */
  show(model) {
    const { editor, editing } = this;
    editor.value = model.text;
    editing.synced = model.text;
    const [anchor, head] = [model.anchor, model.head].map((scalars) => utf16Offset(model.text, scalars));
    editor.setSelectionRange(Math.min(anchor, head), Math.max(anchor, head), head < anchor ? 'backward' : 'forward');
    editing.caretSent = { anchor: model.anchor, head: model.head };
    this.fit();
  }

  /** Undo or redo while typing: the text's own steps, then the editor
   * shows what they left. */
  undo(command) {
    this.flush();
    this.perform(command);
    if (this.editing?.id) this.follow({ always: true });
  }

  /**
   * The editor's glyphs, for a peer's caret in the text typed here: what
   * this person sees is the editor, laid out by its own measure, not the
   * drawing under it. In the editor's pixels, unturned, from its top left
   * corner; null when `id` is not the text being typed.
   */
  glyphs(id) {
    const { editing, editor } = this;
    if (!editing || editing.id !== id || editor.hidden) return null;
    const { px, font, align } = editing;
    const style = getComputedStyle(editor);
    const left = parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
    const top = parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop);
    const inner = editor.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const lines = editor.value.split('\n');
    const measure = (text) => {
      this.measurer.font = `${px}px "${font}"`;
      return this.measurer.measureText(text).width;
    };
    const lineStart = (line) => {
      const width = measure(lines[line]);
      return left + (align === 'center' ? (inner - width) / 2 : align === 'right' ? inner - width : 0);
    };
    return {
      size: px,
      toScreen: () => {
        // The editor turns about its centre (`translate(-50%, -50%)
        // rotate(…)`), and its bounding box keeps that centre.
        const box = editor.getBoundingClientRect();
        return new DOMMatrix()
          .translate(box.left + box.width / 2, box.top + box.height / 2)
          .rotate((editing.rotation * 180) / Math.PI)
          .translate(-editor.offsetWidth / 2, -editor.offsetHeight / 2);
      },
      place: (scalars) => {
        const { line, offset } = placeInLines(lines, scalars);
        return { line, x: lineStart(line) + measure(lines[line].slice(0, offset)) };
      },
      lineEdge: (line, side) => lineStart(line) + (side === 'end' ? measure(lines[line]) : 0),
      // A line's letters sit in the middle of its line box.
      lineTop: (line) => top + line * LINE_HEIGHT * px + ((LINE_HEIGHT - 1.1) * px) / 2,
    };
  }

  /** What the editor shows, for redrawing peers' carets when it changes. */
  typedState() {
    return this.editing ? `${this.editor.value}|${this.editor.style.width}` : '';
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

  /** Ends typing, what was typed kept; a new text left blank is removed. */
  commit() {
    const editing = this.editing;
    if (!editing) return;
    this.composing = false;
    this.flush();
    if (editing.isNew && editing.id && this.editor.value.trim() === '' && this.session.selectedText !== null) {
      this.perform('deleteSelection');
    }
    this.close();
  }

  /** The editor hidden, the caret taken out of the text. */
  close() {
    const editing = this.editing;
    if (!editing) return;
    this.editing = null;
    this.session.placeCaret(null);
    this.editor.hidden = true;
    document.body.classList.remove('typing');
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
      // Where tiles draw, the topmost entity whose paint reaches the point.
      const kind = group ? group.classList[0] : this.view?.kindAt(point.x, point.y) ?? null;
      if (kind === 'text') {
        // The two clicks before toggled it: it alone is selected, then edited.
        this.session.perform('clearSelection');
        this.session.gesture('tap', point.x, point.y);
        this.startSelected();
        changed();
      } else if (!kind) {
        this.startNew(point);
      }
    });
  }
}
