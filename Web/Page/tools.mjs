// The tools: exactly one is active, and it says what a press on the canvas
// does and which options show. No DOM and no imports: Node tests load it
// as it is, and the module's numbers (`Tool`, `DrawingAction` of easel.mjs)
// come as arguments.

/** Every tool, in tool bar order, with the letter that picks it. */
export const TOOLS = Object.freeze([
  { id: 'select', label: 'Select', key: 'v', icon: '↖' },
  { id: 'hand', label: 'Hand', key: 'h', icon: '✋' },
  { id: 'draw', label: 'Draw', key: 'p', icon: '✏️' },
  { id: 'eraser', label: 'Eraser', key: 'e', icon: '⌫' },
  { id: 'lasso', label: 'Lasso', key: 'l', icon: '➰' },
  { id: 'shapes', label: 'Shapes', key: 'r', icon: '▭' },
  { id: 'text', label: 'Text', key: 't', icon: 'T' },
]);

export const PENS = Object.freeze(['pen', 'brush', 'marker', 'neon', 'pencil']);
export const ERASERS = Object.freeze(['pixels', 'objects', 'blur']);
export const FILLS = Object.freeze(['none', 'semi', 'solid']);

/**
 * The fonts the page serves itself (Web/build.sh copies them from Debian's
 * fonts-dejavu-core and fonts-liberation), by the family names the model
 * keeps; a machine that has them installed shows an exported SVG the same.
 */
export const FONTS = Object.freeze([
  { family: 'DejaVu Sans', label: 'Sans', file: 'DejaVuSans.ttf' },
  { family: 'DejaVu Serif', label: 'Serif', file: 'DejaVuSerif.ttf' },
  { family: 'DejaVu Sans Mono', label: 'Mono', file: 'DejaVuSansMono.ttf' },
  { family: 'Liberation Sans Narrow', label: 'Narrow', file: 'LiberationSansNarrow-Regular.ttf' },
]);
/** Text styles and alignments by the model's raw values. */
export const TEXT_STYLES = Object.freeze(['regular', 'outlined', 'framed']);
export const ALIGNMENTS = Object.freeze(['left', 'center', 'right']);
/** The sizes the text size slider offers, in document units. */
export const TEXT_SIZES = Object.freeze({ min: 8, max: 160, start: 32 });

/** The opacity of a fill: none, a see-through tint, or the colour itself. */
export const FILL_ALPHA = Object.freeze({ none: 0, semi: 0x40, solid: 0xff });

/**
 * What the page's choices are when it opens: the Select tool, a pen, the
 * pixel eraser, a rectangle, no fill, and text in the first font at 32,
 * regular, left-aligned.
 * @typedef {{ tool: string, pen: string, eraser: string, shape: number, fill: string, font: string,
 *   textSize: number, textStyle: string, align: string }} Choices
 */
export const DEFAULT_CHOICES = Object.freeze({
  tool: 'select', pen: 'pen', eraser: 'pixels', shape: 0, fill: 'none',
  font: FONTS[0].family, textSize: TEXT_SIZES.start, textStyle: 'regular', align: 'left',
});

/** The text options: what the Text tool shows, and Select with a text selected. */
export const TEXT_OPTIONS = Object.freeze(['fonts', 'text-size', 'text-style', 'align']);

/** The tool with this ID; throws for an unknown one (a typo in the page). */
export function tool(id) {
  const found = TOOLS.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no tool "${id}"`);
  return found;
}

/**
 * What a press on the canvas does with these choices: 'draw' (the editor's
 * drawing gesture: ink, an eraser, the lasso or a shape's box), 'pan' (a
 * drag moves the view, over entities too), 'text' (a tap places text) or
 * 'select' (taps select, drags move).
 */
export function pressMode(choices) {
  switch (choices.tool) {
    case 'draw': case 'eraser': case 'lasso': case 'shapes': return 'draw';
    case 'hand': return 'pan';
    case 'text': return 'text';
    default: return 'select';
  }
}

/**
 * The editor's drawing settings for these choices: { tool, action } by the
 * module's numbers, or null for a tool that draws nothing.
 */
export function drawingFor(choices, { Tool, DrawingAction }) {
  switch (choices.tool) {
    case 'draw': return { tool: Tool[choices.pen], action: DrawingAction.ink };
    case 'eraser':
      if (choices.eraser === 'objects') return { tool: Tool.pen, action: DrawingAction.eraseObjects };
      return { tool: choices.eraser === 'blur' ? Tool.blur : Tool.eraser, action: DrawingAction.ink };
    case 'lasso': return { tool: Tool.pen, action: DrawingAction.lasso };
    case 'shapes': return { tool: Tool.pen, action: DrawingAction.shape };
    default: return null;
  }
}

/**
 * The option groups to show: the active tool's own, and for the Select
 * tool what changes the selection (fill only for shapes, the text options
 * only for texts).
 * @param {Choices} choices
 * @param {{ hasSelection?: boolean, hasText?: boolean, hasShape?: boolean }} selection
 */
export function optionsFor(choices, { hasSelection = false, hasText = false, hasShape = false } = {}) {
  switch (choices.tool) {
    case 'draw': return ['pens', 'color', 'weight', 'cap'];
    case 'eraser': return ['erasers', 'weight'];
    case 'shapes': return ['shapes', 'color', 'fill', 'weight'];
    case 'text': return [...TEXT_OPTIONS, 'color'];
    case 'select':
      if (!hasSelection) return [];
      return [...(hasText ? TEXT_OPTIONS : []), 'color', ...(hasShape ? ['fill'] : []), 'weight', 'arrange'];
    default: return [];
  }
}

/** A colour (0xRRGGBBAA) with the fill choice's opacity. */
export function fillColor(rgba, fill) {
  return ((rgba & ~0xff) | FILL_ALPHA[fill]) >>> 0;
}
