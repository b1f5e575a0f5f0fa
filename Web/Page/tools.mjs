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

/** The opacity of a fill: none, a see-through tint, or the colour itself. */
export const FILL_ALPHA = Object.freeze({ none: 0, semi: 0x40, solid: 0xff });

/**
 * What the page's choices are when it opens: the Select tool, a pen, the
 * pixel eraser, a rectangle, no fill.
 * @typedef {{ tool: string, pen: string, eraser: string, shape: number, fill: string }} Choices
 */
export const DEFAULT_CHOICES = Object.freeze({ tool: 'select', pen: 'pen', eraser: 'pixels', shape: 0, fill: 'none' });

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
 * tool with a selection, what changes the selection.
 */
export function optionsFor(choices, hasSelection) {
  switch (choices.tool) {
    case 'draw': return ['pens', 'color', 'weight', 'cap'];
    case 'eraser': return ['erasers', 'weight'];
    case 'shapes': return ['shapes', 'color', 'fill', 'weight'];
    case 'text': return ['color'];
    case 'select': return hasSelection ? ['color', 'fill', 'weight', 'arrange'] : [];
    default: return [];
  }
}

/** A colour (0xRRGGBBAA) with the fill choice's opacity. */
export function fillColor(rgba, fill) {
  return ((rgba & ~0xff) | FILL_ALPHA[fill]) >>> 0;
}
