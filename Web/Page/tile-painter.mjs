// Paints the module's SVG for an entity onto a 2D canvas, as Chromium
// draws that SVG: the tiled canvas's way of drawing the same picture
// without a DOM element per entity. It covers what the renderer writes:
// groups with transforms, rect, ellipse, polygon, path, text and its
// tspans, image, use, masks made of white and black shapes, and the
// renderer's filters (blur exactly; neon's glow as a shadow of the same
// width; the pencil's grain as its mean opacity).

/**
 * @typedef {import('./svg-scan.mjs').SVGNode} SVGNode
 * @typedef {{
 *   definitions: Map<string, SVGNode>,
 *   image: (href: string) => CanvasImageSource | null,
 *   scratch: (index: number) => HTMLCanvasElement,
 *   fontFamily: string,
 * }} PaintEnvironment
 * @typedef {{ fill: string, fillOpacity: number, stroke: string, strokeOpacity: number,
 *   strokeWidth: number, fontSize: number, fontFamily: string, anchor: string, baseline: string,
 *   paintOrder: string, lineJoin: CanvasLineJoin, dash: number[] }} Style
 */

/** @type {Style} */
export const INITIAL_STYLE = {
  fill: '#000000', fillOpacity: 1, stroke: 'none', strokeOpacity: 1, strokeWidth: 1, fontSize: 16,
  fontFamily: '', anchor: 'start', baseline: 'auto', paintOrder: 'normal', lineJoin: 'miter', dash: [],
};

/** The pencil's grain keeps about this share of its ink, on average. */
const GRAIN_OPACITY = 0.6;
/** The renderer's filters' standard deviations, in user units. */
const BLUR_DEVIATION = 4;
const NEON_DEVIATION = 3;

/** Paints `node` (an entity's group, or anything inside one). */
export function paintNode(context, node, style, environment) {
  // A group applies its own transform; any other element's (an eraser's
  // ink, say) is applied around it here.
  if (node.name !== 'g' && node.attributes.transform) {
    context.save();
    applyTransform(context, node.attributes.transform);
    paintElement(context, node, style, environment);
    context.restore();
  } else {
    paintElement(context, node, style, environment);
  }
}

function paintElement(context, node, style, environment) {
  switch (node.name) {
    case 'g': paintGroup(context, node, style, environment); break;
    case 'defs': case 'mask': case 'title': case 'filter': break;
    case 'use': paintUse(context, node, style, environment); break;
    case 'text': paintText(context, node, inherit(style, node.attributes)); break;
    case 'image': paintImage(context, node, environment); break;
    default: paintShape(context, node, inherit(style, node.attributes));
  }
}

function paintGroup(context, node, style, environment) {
  const { attributes } = node;
  const mask = reference(attributes.mask);
  // A "below" mask is an older eraser's: the eraser clears what is under
  // it when it is painted in its turn, as the mask would have.
  const masked = mask && !mask.startsWith('below-') ? environment.definitions.get(mask) : null;
  const filter = reference(attributes.filter);
  if (masked || filter === 'blur') {
    paintThroughScratch(context, node, style, environment, masked, filter === 'blur');
    return;
  }
  context.save();
  applyTransform(context, attributes.transform);
  if (attributes.opacity !== undefined) context.globalAlpha *= Number(attributes.opacity);
  const inner = inherit(style, attributes);
  for (const child of node.children) if (typeof child !== 'string') paintNode(context, child, inner, environment);
  context.restore();
}

/**
 * A group drawn apart and then put down: through its mask (white shapes
 * keep, black ones cut) and, for the blur, blurred first, as SVG applies a
 * filter before a mask.
 */
function paintThroughScratch(context, node, style, environment, mask, blurs) {
  const depth = (environment.depth ?? 0);
  const drawing = environment.scratch(depth * 2);
  const drawn = /** @type {CanvasRenderingContext2D} */ (drawing.getContext('2d'));
  const transform = context.getTransform();
  drawn.setTransform(1, 0, 0, 1, 0, 0);
  drawn.clearRect(0, 0, drawing.width, drawing.height);
  drawn.setTransform(transform);
  drawn.globalAlpha = context.globalAlpha;
  const inner = { ...environment, depth: depth + 1 };
  const attributes = { ...node.attributes, mask: undefined, filter: undefined };
  paintGroup(drawn, { ...node, attributes }, style, inner);
  if (blurs) {
    const scale = Math.hypot(transform.a, transform.b);
    drawn.setTransform(1, 0, 0, 1, 0, 0);
    drawn.globalCompositeOperation = 'copy';
    drawn.filter = `blur(${BLUR_DEVIATION * scale}px)`;
    drawn.drawImage(drawing, 0, 0);
    drawn.filter = 'none';
    drawn.globalCompositeOperation = 'source-over';
  }
  if (mask) {
    const shape = environment.scratch(depth * 2 + 1);
    const cut = /** @type {CanvasRenderingContext2D} */ (shape.getContext('2d'));
    cut.setTransform(1, 0, 0, 1, 0, 0);
    cut.clearRect(0, 0, shape.width, shape.height);
    cut.setTransform(transform);
    paintMask(cut, mask, environment);
    drawn.setTransform(1, 0, 0, 1, 0, 0);
    drawn.globalCompositeOperation = 'destination-in';
    drawn.drawImage(shape, 0, 0);
    drawn.globalCompositeOperation = 'source-over';
  }
  context.save();
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.globalAlpha = 1;
  context.drawImage(drawing, 0, 0);
  context.restore();
}

/** A mask's shapes in order: white keeps, black cuts. */
function paintMask(context, mask, environment) {
  for (const child of mask.children) {
    if (typeof child === 'string') continue;
    const fill = child.attributes.fill ?? '#000';
    context.globalCompositeOperation = isBlack(fill) ? 'destination-out' : 'source-over';
    const white = { ...INITIAL_STYLE, fill: '#ffffff' };
    if (child.name === 'rect' && Number(child.attributes.width) >= 1e7) {
      // The renderer's "everywhere".
      context.save();
      context.setTransform(1, 0, 0, 1, 0, 0);
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, context.canvas.width, context.canvas.height);
      context.restore();
    } else {
      paintNode(context, child, white, environment);
    }
  }
  context.globalCompositeOperation = 'source-over';
}

function isBlack(color) {
  return color === '#000' || color === '#000000' || color === 'black';
}

function paintUse(context, node, style, environment) {
  const target = environment.definitions.get(reference(node.attributes.href) ?? '');
  if (!target) return;
  paintNode(context, target, inherit(style, node.attributes), environment);
}

/** An older eraser, painted in its turn: its ink clears what lies under
 * it; a blur eraser's ink blurs it instead. */
export function paintEraser(context, eraser, environment) {
  context.save();
  applyTransform(context, eraser.ink.attributes.transform);
  const path = pathOf(eraser.ink);
  if (eraser.blurs) {
    context.clip(path);
    const transform = context.getTransform();
    context.setTransform(1, 0, 0, 1, 0, 0);
    const scale = Math.hypot(transform.a, transform.b);
    const copy = environment.scratch(0);
    const copied = /** @type {CanvasRenderingContext2D} */ (copy.getContext('2d'));
    copied.setTransform(1, 0, 0, 1, 0, 0);
    copied.globalCompositeOperation = 'copy';
    copied.drawImage(context.canvas, 0, 0);
    copied.globalCompositeOperation = 'source-over';
    context.filter = `blur(${BLUR_DEVIATION * scale}px)`;
    context.drawImage(copy, 0, 0);
  } else {
    context.globalCompositeOperation = 'destination-out';
    context.fillStyle = '#000000';
    context.fill(path);
  }
  context.restore();
}

function paintText(context, node, style) {
  const lines = node.children.filter((child) => typeof child !== 'string' && child.name === 'tspan');
  const font = `${style.fontSize}px ${style.fontFamily}`;
  context.font = font;
  context.textAlign = style.anchor === 'middle' ? 'center' : style.anchor === 'end' ? 'right' : 'left';
  context.textBaseline = 'alphabetic';
  if (lines.length === 0) {
    const text = node.children.filter((child) => typeof child === 'string').join('');
    const central = style.baseline === 'central' || style.baseline === 'middle';
    const shift = central ? centralBaseline(context, font) : 0;
    paintLetters(context, text, Number(node.attributes.x ?? 0), Number(node.attributes.y ?? 0) + shift, style);
    return;
  }
  for (const line of lines) {
    if (typeof line === 'string') continue;
    const text = line.children.filter((child) => typeof child === 'string').join('');
    paintLetters(context, text, Number(line.attributes.x ?? 0), Number(line.attributes.y ?? 0), style);
  }
}

/** font → how far below a central baseline the alphabetic one lies. */
const centralBaselines = new Map();

/**
 * SVG's central baseline is the middle of the first font's em box, whatever
 * font the glyphs come from (an emoji's comes from a fallback); a canvas's
 * middle baseline is not, so the letters go on the alphabetic one, moved.
 */
function centralBaseline(context, font) {
  let shift = centralBaselines.get(font);
  if (shift === undefined) {
    const metrics = context.measureText('x');
    shift = (metrics.fontBoundingBoxAscent - metrics.fontBoundingBoxDescent) / 2;
    centralBaselines.set(font, shift);
  }
  return shift;
}

function paintLetters(context, text, x, y, style) {
  if (text === '') return;
  const fill = paint(style.fill, style.fillOpacity);
  const stroke = paint(style.stroke, style.strokeOpacity);
  const strokeIt = () => {
    if (!stroke) return;
    context.strokeStyle = stroke;
    context.lineWidth = style.strokeWidth;
    context.lineJoin = style.lineJoin;
    context.strokeText(text, x, y);
  };
  if (style.paintOrder === 'stroke') strokeIt();
  if (fill) {
    context.fillStyle = fill;
    context.fillText(text, x, y);
  }
  if (style.paintOrder !== 'stroke') strokeIt();
}

function paintImage(context, node, environment) {
  const { attributes } = node;
  const source = environment.image(attributes.href ?? '');
  if (!source) return;
  context.drawImage(source, Number(attributes.x ?? 0), Number(attributes.y ?? 0),
    Number(attributes.width ?? 0), Number(attributes.height ?? 0));
}

function paintShape(context, node, style) {
  const path = pathOf(node);
  if (!path) return;
  const { attributes } = node;
  const grain = reference(attributes.filter) === 'grain';
  const neon = reference(attributes.filter) === 'neon';
  const fill = paint(style.fill, style.fillOpacity * (grain ? GRAIN_OPACITY : 1));
  if (fill) {
    if (neon) {
      context.save();
      const transform = context.getTransform();
      context.shadowColor = fill;
      context.shadowBlur = 2 * NEON_DEVIATION * Math.hypot(transform.a, transform.b);
    }
    context.fillStyle = fill;
    context.fill(path);
    if (neon) context.restore();
  }
  const stroke = paint(style.stroke, style.strokeOpacity);
  if (stroke && style.strokeWidth > 0) {
    context.strokeStyle = stroke;
    context.lineWidth = style.strokeWidth;
    context.lineJoin = style.lineJoin;
    context.setLineDash(style.dash);
    context.stroke(path);
    if (style.dash.length) context.setLineDash([]);
  }
}

/** The element's outline as a Path2D, made once and kept on the node. */
export function pathOf(node) {
  if (node.path !== undefined) return node.path;
  const a = node.attributes;
  const number = (name) => Number(a[name] ?? 0);
  let path = null;
  switch (node.name) {
    case 'rect': {
      path = new Path2D();
      const rx = number('rx');
      if (rx > 0) /** @type {any} */ (path).roundRect(number('x'), number('y'), number('width'), number('height'), rx);
      else path.rect(number('x'), number('y'), number('width'), number('height'));
      break;
    }
    case 'ellipse':
      path = new Path2D();
      path.ellipse(number('cx'), number('cy'), Math.max(number('rx'), 0), Math.max(number('ry'), 0), 0, 0, 2 * Math.PI);
      break;
    case 'circle':
      path = new Path2D();
      path.arc(number('cx'), number('cy'), Math.max(number('r'), 0), 0, 2 * Math.PI);
      break;
    case 'polygon': case 'polyline': {
      const values = (a.points ?? '').trim().split(/[\s,]+/).map(Number);
      let data = '';
      for (let index = 0; index + 1 < values.length; index += 2) {
        data += `${index === 0 ? 'M' : 'L'}${values[index]} ${values[index + 1]}`;
      }
      path = new Path2D(node.name === 'polygon' ? `${data}Z` : data);
      break;
    }
    case 'path': path = new Path2D(a.d ?? ''); break;
    case 'line':
      path = new Path2D(`M${number('x1')} ${number('y1')}L${number('x2')} ${number('y2')}`);
      break;
    default: break;
  }
  node.path = path;
  return path;
}

/** The style an element's children inherit. */
export function inherit(style, attributes) {
  let next = null;
  const set = (key, value) => { next ??= { ...style }; next[key] = value; };
  if (attributes.fill !== undefined) set('fill', attributes.fill);
  if (attributes['fill-opacity'] !== undefined) set('fillOpacity', Number(attributes['fill-opacity']));
  if (attributes.stroke !== undefined) set('stroke', attributes.stroke);
  if (attributes['stroke-opacity'] !== undefined) set('strokeOpacity', Number(attributes['stroke-opacity']));
  if (attributes['stroke-width'] !== undefined) set('strokeWidth', Number(attributes['stroke-width']));
  if (attributes['stroke-linejoin'] !== undefined) set('lineJoin', attributes['stroke-linejoin']);
  if (attributes['stroke-dasharray'] !== undefined) {
    set('dash', attributes['stroke-dasharray'] === 'none' ? [] : attributes['stroke-dasharray'].split(/[\s,]+/).map(Number));
  }
  if (attributes['font-size'] !== undefined) set('fontSize', Number(attributes['font-size']));
  if (attributes['font-family'] !== undefined) set('fontFamily', attributes['font-family']);
  if (attributes['text-anchor'] !== undefined) set('anchor', attributes['text-anchor']);
  if (attributes['dominant-baseline'] !== undefined) set('baseline', attributes['dominant-baseline']);
  if (attributes['paint-order'] !== undefined) set('paintOrder', attributes['paint-order']);
  return next ?? style;
}

/** A colour with an opacity as a canvas style; null for none. */
export function paint(color, opacity) {
  if (!color || color === 'none' || opacity <= 0) return null;
  if (opacity >= 1) return color;
  const hex = color.startsWith('#') ? color.slice(1) : null;
  if (!hex || (hex.length !== 6 && hex.length !== 3)) return color;
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
  const value = parseInt(full, 16);
  return `rgba(${value >> 16},${(value >> 8) & 255},${value & 255},${opacity})`;
}

/** `url(#name)` → `name`; anything else → null. */
export function reference(value) {
  if (!value) return null;
  const match = /^url\(#([^)]+)\)$/.exec(value) ?? /^#(.+)$/.exec(value);
  return match ? match[1] : null;
}

/** Applies an SVG `transform` attribute to the context, left to right. */
export function applyTransform(context, value) {
  if (!value) return;
  for (const [, name, list] of value.matchAll(/(\w+)\(([^)]*)\)/g)) {
    const numbers = list.trim().split(/[\s,]+/).map(Number);
    switch (name) {
      case 'translate': context.translate(numbers[0] ?? 0, numbers[1] ?? 0); break;
      case 'rotate': context.rotate(((numbers[0] ?? 0) * Math.PI) / 180); break;
      case 'scale': context.scale(numbers[0] ?? 1, numbers[1] ?? numbers[0] ?? 1); break;
      case 'matrix': context.transform(...numbers.slice(0, 6)); break;
      default: break;
    }
  }
}
