// The tool bar and the options beside the canvas: one active tool, and the
// options of that tool (or of the selection) and nothing else. Which tool
// does what is tools.mjs; this file keeps the buttons and the editor's
// drawing settings in step with the choices.
import { TOOLS, DEFAULT_CHOICES, drawingFor, fillColor, optionsFor, pressMode, tool } from './tools.mjs';

const $ = (id) => document.getElementById(id);

export class Toolbar {
  /**
   * `easel` gives the weights each tool offers; `numbers` holds the
   * module's `Command`, `Tool` and `DrawingAction`; `perform(kind, options)`
   * runs a command and redraws.
   */
  constructor({ easel, session, numbers, perform }) {
    this.easel = easel;
    this.session = session;
    this.numbers = numbers;
    this.perform = perform;
    this.choices = { ...DEFAULT_CHOICES };
    this.shownGroups = null;
    const holder = $('tool-buttons');
    for (const { id, label, key, icon } of TOOLS) {
      const button = document.createElement('button');
      button.dataset.tool = id;
      button.title = `${label} (${key.toUpperCase()})`;
      button.setAttribute('aria-label', label);
      button.setAttribute('aria-pressed', 'false');
      button.textContent = icon;
      button.addEventListener('click', () => this.setTool(id));
      holder.append(button);
    }
    const pick = (attribute, name, parse = (value) => value) => {
      for (const button of document.querySelectorAll(`[${attribute}]`)) {
        button.addEventListener('click', () => {
          this.choices[name] = parse(button.getAttribute(attribute));
          if (name === 'fill' && this.choices.tool === 'select') {
            this.perform(numbers.Command.setFill, { integer: this.fill() });
          }
          this.changedTool();
        });
      }
    };
    pick('data-pen', 'pen');
    pick('data-eraser', 'eraser');
    pick('data-shape', 'shape', Number);
    pick('data-fill', 'fill');
    $('arrow-cap').addEventListener('click', () => {
      $('arrow-cap').setAttribute('aria-pressed', String($('arrow-cap').getAttribute('aria-pressed') !== 'true'));
      this.applyDrawing();
    });
    $('color').addEventListener('change', () => {
      this.applyDrawing();
      if (this.choices.tool === 'select' && session.flags.hasSelection) {
        this.perform(numbers.Command.setColor, { integer: this.rgba() });
      }
    });
    $('weight').addEventListener('change', () => {
      this.applyDrawing();
      if (this.choices.tool === 'select' && session.flags.hasSelection) {
        this.perform(numbers.Command.setWeight, { a: Number($('weight').value) });
      }
    });
    this.setTool('select');
  }

  /** The drawing colour, 0xRRGGBBAA. */
  rgba() { return (parseInt($('color').value.slice(1), 16) * 256 + 255) >>> 0; }

  /** The fill the choice gives the drawing colour; 0 for none. */
  fill() { return this.choices.fill === 'none' ? 0 : fillColor(this.rgba(), this.choices.fill); }

  /** What a press on the canvas does now (tools.mjs `pressMode`). */
  get pressMode() { return pressMode(this.choices); }

  get tool() { return this.choices.tool; }

  setTool(id) {
    tool(id); // an unknown tool is a typo in the page: it throws
    this.choices.tool = id;
    this.changedTool();
  }

  /** The tool or one of its options changed: the weights it offers, the
   * editor's settings, the pressed buttons. */
  changedTool() {
    const drawing = drawingFor(this.choices, this.numbers);
    if (drawing) {
      const { min, max, start } = this.easel.drawingWeights(drawing.tool, drawing.action);
      Object.assign($('weight'), { min, max, step: max - min > 20 ? 1 : 0.5, value: start });
    }
    this.applyDrawing();
    const { choices } = this;
    const press = (selector, attribute, value) => {
      for (const button of document.querySelectorAll(selector)) {
        button.setAttribute('aria-pressed', String(button.getAttribute(attribute) === String(value)));
      }
    };
    press('[data-tool]', 'data-tool', choices.tool);
    press('[data-pen]', 'data-pen', choices.pen);
    press('[data-eraser]', 'data-eraser', choices.eraser);
    press('[data-shape]', 'data-shape', choices.shape);
    press('[data-fill]', 'data-fill', choices.fill);
    const canvas = $('canvas');
    const mode = this.pressMode;
    canvas.classList.toggle('drawing', mode === 'draw');
    canvas.classList.toggle('panning', mode === 'pan');
    canvas.classList.toggle('typing', mode === 'text');
    this.update(this.session.flags);
  }

  /** The editor's drawing settings from the choices. */
  applyDrawing() {
    const drawing = drawingFor(this.choices, this.numbers);
    if (!drawing) return;
    const { Command } = this.numbers;
    const arrow = $('arrow-cap').getAttribute('aria-pressed') === 'true' ? 1 : 0;
    this.perform(Command.setDrawing,
      { integer: this.rgba(), a: Number($('weight').value), b: drawing.tool, c: arrow, d: drawing.action });
    if (this.choices.tool === 'shapes') this.perform(Command.shapeTool, { b: this.choices.shape, integer: this.fill() });
  }

  /** Shows the option groups of the tool, and of the selection. */
  update(flags) {
    const groups = optionsFor(this.choices, flags.hasSelection);
    const key = groups.join(' ');
    if (key === this.shownGroups) return;
    this.shownGroups = key;
    for (const group of document.querySelectorAll('#options [data-group]')) {
      group.hidden = !groups.includes(group.dataset.group);
    }
    $('options').hidden = groups.length === 0;
  }
}
