// The tool bar and the options beside the canvas: one active tool, and the
// options of that tool (or of the selection) and nothing else. Which tool
// does what is tools.mjs; this file keeps the buttons and the editor's
// drawing settings in step with the choices.
import {
  ALIGNMENTS, DEFAULT_CHOICES, FONTS, TEXT_SIZES, TEXT_STYLES, TOOLS, drawingFor, fillColor, optionsFor, pressMode, tool,
} from './tools.mjs';
import { parseHex } from './colour.mjs';

/**
 * An element of the page by ID (each is there: the page is ours).
 * @type {(id: string) => any}
 */
const $ = (id) => document.getElementById(id);

/** Of the buttons carrying `attribute`, the one whose value is chosen shows pressed. */
function pressChosen(attribute, value) {
  for (const button of document.querySelectorAll(`[${attribute}]`)) {
    button.setAttribute('aria-pressed', String(button.getAttribute(attribute) === String(value)));
  }
}

export class Toolbar {
  /**
   * `easel` gives the weights each tool offers; `numbers` holds the
   * module's `Tool` and `DrawingAction`; `perform(name, named)`
   * runs a command and redraws.
   */
  constructor({ easel, session, numbers, perform }) {
    this.easel = easel;
    this.session = session;
    this.numbers = numbers;
    this.perform = perform;
    /** @type {import('./tools.mjs').Choices} */
    this.choices = { ...DEFAULT_CHOICES };
    this.shownGroups = null;
    this.shownText = null;
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
    for (const { family, label } of FONTS) {
      const button = document.createElement('button');
      button.dataset.font = family;
      button.title = family;
      button.textContent = label;
      // Through the style object: the page's policy refuses style attributes.
      button.style.fontFamily = `"${family}"`;
      $('fonts').append(button);
    }
    Object.assign($('text-size'), { min: TEXT_SIZES.min, max: TEXT_SIZES.max, value: TEXT_SIZES.start });
    // An option picked with the Select tool changes the selection too, as
    // one step to undo.
    const toSelection = {
      fill: () => this.perform('setFill', { color: this.fill() }),
      font: () => this.perform('setFont', { font: this.choices.font }),
      textStyle: () => this.perform('setTextStyle', { style: TEXT_STYLES.indexOf(this.choices.textStyle) }),
      align: () => this.perform('setAlignment', { alignment: ALIGNMENTS.indexOf(this.choices.align) }),
    };
    const pick = (attribute, name, parse = (value) => value) => {
      for (const button of document.querySelectorAll(`[${attribute}]`)) {
        button.addEventListener('click', () => {
          this.choices[name] = parse(button.getAttribute(attribute));
          if (this.choices.tool === 'select' && session.flags.hasSelection) toSelection[name]?.();
          this.changedTool();
        });
      }
    };
    pick('data-font', 'font');
    pick('data-text-style', 'textStyle');
    pick('data-align', 'align');
    $('text-size').addEventListener('change', () => {
      this.choices.textSize = Number($('text-size').value);
      if (this.choices.tool === 'select' && session.flags.hasText) {
        this.perform('setSize', { size: this.choices.textSize });
      }
    });
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
      this.showSamples();
      if (this.choices.tool === 'select' && session.flags.hasSelection) {
        this.perform('setColor', { color: this.rgba() });
      }
    });
    $('weight').addEventListener('change', () => {
      this.applyDrawing();
      if (this.choices.tool === 'select' && session.flags.hasSelection) {
        this.perform('setWeight', { weight: Number($('weight').value) });
      }
    });
    this.setTool('select');
  }

  /** The drawing colour, 0xRRGGBBAA. */
  rgba() { return parseHex($('color').value) ?? 0x222222ff; }

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
    pressChosen('data-tool', choices.tool);
    pressChosen('data-pen', choices.pen);
    pressChosen('data-eraser', choices.eraser);
    pressChosen('data-shape', choices.shape);
    pressChosen('data-fill', choices.fill);
    this.showChoices();
    const canvas = $('canvas');
    const mode = this.pressMode;
    canvas.classList.toggle('drawing', mode === 'draw');
    canvas.classList.toggle('panning', mode === 'pan');
    canvas.classList.toggle('typing', mode === 'text');
    this.update(this.session.flags);
  }

  /** The editor's drawing settings from the choices. */
  applyDrawing() {
    // A tool that draws nothing still gives the editor the colour: text
    // takes it when placed.
    const { Tool, DrawingAction } = this.numbers;
    const drawing = drawingFor(this.choices, this.numbers) ?? { tool: Tool.pen, action: DrawingAction.ink };
    const arrow = $('arrow-cap').getAttribute('aria-pressed') === 'true' ? 1 : 0;
    this.perform('setDrawing',
      { color: this.rgba(), weight: Number($('weight').value), tool: drawing.tool, arrow, action: drawing.action });
    if (this.choices.tool === 'shapes') this.perform('shapeTool', { shape: this.choices.shape, fill: this.fill() });
  }

  /** The text options as chosen: pressed buttons, the size, samples. */
  showChoices() {
    const { choices } = this;
    pressChosen('data-font', choices.font);
    pressChosen('data-text-style', choices.textStyle);
    pressChosen('data-align', choices.align);
    $('text-size').value = String(choices.textSize);
    this.showSamples();
  }

  /** The style buttons show their letter as the text will look: in the
   * chosen font and the drawing colour. */
  showSamples() {
    for (const sample of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-text-style] .sample'))) {
      sample.style.fontFamily = `"${this.choices.font}"`;
      if (sample.classList.contains('outlined')) sample.style.webkitTextStroke = `1px ${$('color').value}`;
      else sample.style.color = $('color').value;
    }
  }

  /**
   * Shows the option groups of the tool, and of the selection; with one
   * text selected, its font, size, style and alignment become the choices.
   */
  update(flags, selection) {
    const groups = optionsFor(this.choices, flags);
    const key = groups.join(' ');
    if (key !== this.shownGroups) {
      this.shownGroups = key;
      for (const group of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#options [data-group]'))) {
        group.hidden = !groups.includes(group.dataset.group);
      }
      $('options').hidden = groups.length === 0;
    }
    if (selection === undefined || !flags.oneText) {
      this.shownText = null;
      return;
    }
    // Read every update (one entity): an undo or a peer changes the text
    // under an unchanged selection, and the buttons follow it.
    const text = this.session.selectedTextEntity();
    const shown = text && `${selection} ${text.font} ${text.size} ${text.style} ${text.alignment}`;
    if (!text || shown === this.shownText) return;
    this.shownText = shown;
    Object.assign(this.choices, {
      font: text.font || this.choices.font, textSize: Math.round(text.size),
      textStyle: TEXT_STYLES[text.style] ?? 'regular', align: ALIGNMENTS[text.alignment] ?? 'left',
    });
    this.showChoices();
  }
}
