// Paints the module's SVG for an entity onto a 2D canvas, as Chromium
// draws that SVG: the tiled canvas's way of drawing the same picture
// without a DOM element per entity. It covers what the renderer writes:
// groups with transforms, rect, ellipse, polygon, path, text and its
// tspans, image, use, masks made of white and black shapes, and the
// renderer's filters (blur exactly; neon's glow as a shadow of the same
// width; the pencil's grain as its mean opacity).
//
// Tens of thousands of entities go through here when a zoomed-out board is
// drawn, so the costly canvas calls are avoided: transforms are multiplied
// here, parsed once per element, and set once per shape (no save and
// restore); fonts and colours are set only when they change; an emoji is
// shaped and rasterised once per size and then copied (`EmojiAtlas`).

/**
 * @typedef {import('./svg-scan.mjs').SVGNode} SVGNode
 * @typedef {[number, number, number, number, number, number]} Matrix
 * @typedef {{
 *   definitions: Map<string, SVGNode>,
 *   image: (href: string) => CanvasImageSource | null,
 *   scratch: (index: number) => HTMLCanvasElement,
 *   fontFamily: string,
 *   atlas?: EmojiAtlas,
 *   depth?: number,
 *   area?: number[],
 *   ground?: string | null,
 * }} PaintEnvironment
 * `ground`: the opaque colour tiles are filled with, if any: an eraser
 * paints it where it erases rather than clearing to nothing, which would
 * show what lies beneath the tile.
 * `area`: the pixels ([left, top, right, bottom]) the entity being painted
 * may touch; what is drawn aside on a scratch is cleared and copied there
 * only, not over the whole tile (three copies of a whole tile for each
 * erased entity were most of a mend's time).
 * @typedef {{ fill: string, fillOpacity: number, stroke: string, strokeOpacity: number,
 *   strokeWidth: number, fontSize: number, fontFamily: string, anchor: string, baseline: string,
 *   paintOrder: string, lineJoin: CanvasLineJoin, dash: number[] }} Style
 */

/** @type {Style} */
export const INITIAL_STYLE = {
  fill: '#000000', fillOpacity: 1, stroke: 'none', strokeOpacity: 1, strokeWidth: 1, fontSize: 16,
  fontFamily: '', anchor: 'start', baseline: 'auto', paintOrder: 'normal', lineJoin: 'miter', dash: [],
};

/** @type {Matrix} */
export const IDENTITY = [1, 0, 0, 1, 0, 0];

/** The pencil's grain keeps about this share of its ink, on average. */
const GRAIN_OPACITY = 0.6;
/** The renderer's filters' standard deviations, in user units. */
const BLUR_DEVIATION = 4;
const NEON_DEVIATION = 3;

/** Paints `node` (an entity's group, or anything inside one) under `matrix`. */
export function paintNode(context, node, style, environment, matrix) {
  const placed = node.attributes.transform ? multiply(matrix, matrixOf(node)) : matrix;
  switch (node.name) {
    case 'g': paintGroup(context, node, style, environment, placed); break;
    case 'defs': case 'mask': case 'title': case 'filter': break;
    case 'use': paintUse(context, node, style, environment, placed); break;
    case 'text': paintText(context, node, inherit(style, node.attributes), environment, placed); break;
    case 'image': paintImage(context, node, environment, placed); break;
    default: paintShape(context, node, inherit(style, node.attributes), placed);
  }
}

function paintGroup(context, node, style, environment, matrix) {
  const { attributes } = node;
  const mask = reference(attributes.mask);
  // A "below" mask is an older eraser's: the eraser clears what is under
  // it when it is painted in its turn, as the mask would have.
  const masked = mask && !mask.startsWith('below-') ? environment.definitions.get(mask) : null;
  const filter = reference(attributes.filter);
  if (masked || filter === 'blur') {
    paintThroughScratch(context, node, style, environment, matrix, masked, filter === 'blur');
    return;
  }
  const opacity = attributes.opacity === undefined ? 1 : Number(attributes.opacity);
  const alpha = context.globalAlpha;
  if (opacity !== 1) context.globalAlpha = alpha * opacity;
  const inner = inherit(style, attributes);
  for (const child of node.children) {
    if (typeof child !== 'string') paintNode(context, child, inner, environment, matrix);
  }
  if (opacity !== 1) context.globalAlpha = alpha;
}

/**
 * A group drawn apart and then put down: through its mask (white shapes
 * keep, black ones cut) and, for the blur, blurred first, as SVG applies a
 * filter before a mask.
 */
function paintThroughScratch(context, node, style, environment, matrix, mask, blurs) {
  const depth = environment.depth ?? 0;
  const drawing = environment.scratch(depth * 2);
  const [left, top, width, height] = scratchArea(environment, drawing);
  if (width <= 0 || height <= 0) return;
  const drawn = context2D(drawing);
  drawn.save();
  clipTo(drawn, left, top, width, height);
  drawn.globalAlpha = context.globalAlpha;
  const inner = { ...environment, depth: depth + 1 };
  const attributes = { ...node.attributes, mask: undefined, filter: undefined, transform: undefined };
  paintGroup(drawn, { ...node, attributes }, style, inner, matrix);
  if (blurs) {
    drawn.setTransform(1, 0, 0, 1, 0, 0);
    drawn.globalCompositeOperation = 'copy';
    drawn.filter = `blur(${BLUR_DEVIATION * scaleOf(matrix)}px)`;
    drawn.drawImage(drawing, left, top, width, height, left, top, width, height);
    drawn.filter = 'none';
    drawn.globalCompositeOperation = 'source-over';
  }
  if (mask) {
    const shape = environment.scratch(depth * 2 + 1);
    const cut = context2D(shape);
    cut.save();
    clipTo(cut, left, top, width, height);
    paintMask(cut, mask, inner, matrix);
    cut.restore();
    forgetContextState();
    drawn.setTransform(1, 0, 0, 1, 0, 0);
    drawn.globalCompositeOperation = 'destination-in';
    drawn.drawImage(shape, left, top, width, height, left, top, width, height);
    drawn.globalCompositeOperation = 'source-over';
  }
  drawn.restore();
  forgetContextState();
  const alpha = context.globalAlpha;
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.globalAlpha = 1;
  context.drawImage(drawing, left, top, width, height, left, top, width, height);
  context.globalAlpha = alpha;
}

/** The pixels an entity with these paint bounds may touch under `matrix`
 * (a scale and a shift), with room for a blur to reach what lies around
 * it: three deviations, and a pixel for rounding. */
export function paintArea(bounds, matrix) {
  const [scale, , , , x, y] = matrix;
  const reach = 3 * BLUR_DEVIATION * scale + 1;
  return [bounds[0] * scale + x - reach, bounds[1] * scale + y - reach,
    bounds[2] * scale + x + reach, bounds[3] * scale + y + reach];
}

/** The part of a scratch the entity being painted may touch: [left, top,
 * width, height] in whole pixels, within the scratch. */
function scratchArea(environment, scratch) {
  const [left, top, right, bottom] = environment.area ?? [0, 0, scratch.width, scratch.height];
  const x = Math.max(0, Math.floor(left));
  const y = Math.max(0, Math.floor(top));
  return [x, y, Math.min(scratch.width, Math.ceil(right)) - x, Math.min(scratch.height, Math.ceil(bottom)) - y];
}

/** Drawing from here on kept to this rectangle (pixels), which is cleared. */
function clipTo(context, left, top, width, height) {
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.beginPath();
  context.rect(left, top, width, height);
  context.clip();
  context.clearRect(left, top, width, height);
}

/** A mask's shapes in order: white keeps, black cuts. */
function paintMask(context, mask, environment, matrix) {
  const white = { ...INITIAL_STYLE, fill: '#ffffff' };
  for (const child of mask.children) {
    if (typeof child === 'string') continue;
    const fill = child.attributes.fill ?? '#000';
    context.globalCompositeOperation = isBlack(fill) ? 'destination-out' : 'source-over';
    if (child.name === 'rect' && Number(child.attributes.width) >= 1e7) {
      // The renderer's "everywhere".
      context.setTransform(1, 0, 0, 1, 0, 0);
      setFill(context, '#ffffff');
      context.fillRect(0, 0, context.canvas.width, context.canvas.height);
    } else {
      paintNode(context, child, white, environment, matrix);
    }
  }
  context.globalCompositeOperation = 'source-over';
}

function isBlack(color) {
  return color === '#000' || color === '#000000' || color === 'black';
}

function paintUse(context, node, style, environment, matrix) {
  const target = environment.definitions.get(reference(node.attributes.href) ?? '');
  if (target) paintNode(context, target, inherit(style, node.attributes), environment, matrix);
}

/** An older eraser, painted in its turn: its ink clears what lies under
 * it; a blur eraser's ink blurs it instead. */
export function paintEraser(context, eraser, environment, matrix) {
  const placed = multiply(matrix, matrixOf(eraser.ink));
  const path = pathOf(eraser.ink);
  if (!path) return;
  context.save();
  setMatrix(context, placed);
  if (eraser.blurs) {
    context.clip(path);
    context.setTransform(1, 0, 0, 1, 0, 0);
    const copy = environment.scratch(0);
    const [left, top, width, height] = scratchArea(environment, copy);
    if (width > 0 && height > 0) {
      const copied = context2D(copy);
      copied.setTransform(1, 0, 0, 1, 0, 0);
      copied.globalCompositeOperation = 'copy';
      copied.drawImage(context.canvas, left, top, width, height, left, top, width, height);
      copied.globalCompositeOperation = 'source-over';
      context.filter = `blur(${BLUR_DEVIATION * scaleOf(placed)}px)`;
      context.drawImage(copy, left, top, width, height, left, top, width, height);
    }
  } else if (environment.ground) {
    context.fillStyle = environment.ground;
    context.fill(path);
  } else {
    context.globalCompositeOperation = 'destination-out';
    context.fillStyle = '#000000';
    context.fill(path);
  }
  context.restore();
  forgetContextState();
}

function paintText(context, node, style, environment, matrix) {
  const font = `${style.fontSize}px ${fontFamilyText(style.fontFamily)}`;
  const align = style.anchor === 'middle' ? 'center' : style.anchor === 'end' ? 'right' : 'left';
  const lines = node.children.filter((child) => typeof child !== 'string' && child.name === 'tspan');
  if (lines.length === 0) {
    const text = node.children.filter((child) => typeof child === 'string').join('');
    const central = style.baseline === 'central' || style.baseline === 'middle';
    const x = Number(node.attributes.x ?? 0);
    const y = Number(node.attributes.y ?? 0);
    if (central && align === 'center' && environment.atlas?.paint(context, text, font, style, x, y, matrix)) return;
    setMatrix(context, matrix);
    setFont(context, font, align);
    paintLetters(context, text, x, y + (central ? centralBaseline(context, font) : 0), style);
    return;
  }
  setMatrix(context, matrix);
  setFont(context, font, align);
  for (const line of lines) {
    if (typeof line === 'string') continue;
    const text = line.children.filter((child) => typeof child === 'string').join('');
    paintLetters(context, text, Number(line.attributes.x ?? 0), Number(line.attributes.y ?? 0), style);
  }
}

/**
 * A font family as the canvas's `font` reads it: a list or a quoted name
 * as it is, any other name quoted (a name the shorthand cannot read would
 * leave the font before in place).
 */
export function fontFamilyText(family) {
  if (family === '' || family.includes(',') || family.startsWith('"') || family.startsWith("'")) return family;
  return `"${family.replace(/["\\]/g, '\\$&')}"`;
}

/** The font and fill last set on `set.context` here: setting either
 * parses it, costly when done 50,000 times. */
const set = { context: /** @type {any} */ (null), font: '', fill: '' };

/** Forgets what was set on a context (its state was restored). */
export function forgetContextState() {
  set.context = null;
}

function sameContext(context) {
  if (set.context === context) return;
  set.context = context;
  set.font = '';
  set.fill = '';
}

function setFont(context, font, align) {
  sameContext(context);
  if (set.font !== font) {
    context.font = font;
    set.font = font;
  }
  if (context.textAlign !== align) context.textAlign = align;
  if (context.textBaseline !== 'alphabetic') context.textBaseline = 'alphabetic';
}

/** font → how far below a central baseline the alphabetic one lies. */
const centralBaselines = new Map();

/**
 * SVG's central baseline is the middle of the first font's em box, whatever
 * font the glyphs come from (an emoji's comes from a fallback); a canvas's
 * middle baseline is not, so the letters go on the alphabetic one, moved.
 */
export function centralBaseline(context, font) {
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
    setFill(context, fill);
    context.fillText(text, x, y);
  }
  if (style.paintOrder !== 'stroke') strokeIt();
}

function setFill(context, fill) {
  sameContext(context);
  if (set.fill !== fill) {
    context.fillStyle = fill;
    set.fill = fill;
  }
}

/**
 * @typedef {{ color: string, x: number, y: number, share: number }} Speck
 * An entity's mean colour, where its ink's centre lies (as shares of its
 * paint bounds' width and height), and the share of the bounds' width and
 * height a rectangle of as much ink as it has takes.
 */

/**
 * An entity too small on screen to show its shape, as a speck: a rectangle
 * of its mean colour, as much of it as the entity has ink, where its ink
 * is (`measureSpeck`). A zoomed-out board of 50,000 entities was seven
 * seconds of drawing every emoji, glyph and path at two pixels across.
 */
export function paintSpeck(context, speck, bounds, matrix) {
  // In whole pixels, as a glyph or a line that small is drawn: a fraction
  // of a pixel smeared over four reads as a wash, not a dot. One smaller
  // than a pixel is a pixel as opaque as it is big.
  const [minX, minY, maxX, maxY] = bounds;
  const [scale, , , , offsetX, offsetY] = matrix;
  const width = (maxX - minX) * speck.share * scale;
  const height = (maxY - minY) * speck.share * scale;
  const centreX = (minX + (maxX - minX) * speck.x) * scale + offsetX;
  const centreY = (minY + (maxY - minY) * speck.y) * scale + offsetY;
  const pixelsWide = Math.max(1, Math.round(width));
  const pixelsHigh = Math.max(1, Math.round(height));
  setFill(context, speck.color);
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.globalAlpha = Math.min(1, (width * height) / (pixelsWide * pixelsHigh));
  context.fillRect(Math.round(centreX - pixelsWide / 2), Math.round(centreY - pixelsHigh / 2), pixelsWide, pixelsHigh);
  context.globalAlpha = 1;
}

/** The side of the square an entity is drawn into to measure its speck. */
const SPECK_SAMPLE = 16;

/**
 * An entity's speck: it is drawn once, small, on `scratch` (a canvas read
 * back often) and its pixels averaged. Null when it draws nothing.
 * @returns {Speck | null}
 */
export function measureSpeck(scratch, node, bounds, environment) {
  const [minX, minY, maxX, maxY] = bounds;
  const scale = SPECK_SAMPLE / Math.max(maxX - minX, maxY - minY, 1e-6);
  const width = Math.max(1, Math.round((maxX - minX) * scale));
  const height = Math.max(1, Math.round((maxY - minY) * scale));
  const context = /** @type {CanvasRenderingContext2D} */ (scratch.getContext('2d', { willReadFrequently: true }));
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, scratch.width, scratch.height);
  paintNode(context, node, { ...INITIAL_STYLE, fontFamily: environment.fontFamily }, environment,
    [scale, 0, 0, scale, -minX * scale, -minY * scale]);
  const pixels = context.getImageData(0, 0, width, height).data;
  let red = 0, green = 0, blue = 0, alpha = 0, x = 0, y = 0;
  for (let index = 0; index < pixels.length; index += 4) {
    const weight = pixels[index + 3];
    red += pixels[index] * weight;
    green += pixels[index + 1] * weight;
    blue += pixels[index + 2] * weight;
    alpha += weight;
    const pixel = index / 4;
    x += ((pixel % width) + 0.5) * weight;
    y += (Math.floor(pixel / width) + 0.5) * weight;
  }
  if (alpha === 0) return null;
  const coverage = alpha / 255 / (width * height);
  return {
    color: `rgb(${Math.round(red / alpha)}, ${Math.round(green / alpha)}, ${Math.round(blue / alpha)})`,
    x: x / alpha / width, y: y / alpha / height, share: Math.sqrt(coverage),
  };
}

/**
 * What decides an entity's speck, the same for every entity drawn alike
 * wherever it is: its fragment without its ID and place, a text's
 * characters as their count, a stroke's path as its length.
 */
export function speckSignature(svg) {
  // Read by position, not by patterns: a zoom out asks for 50,000.
  const kindStarts = '<g class="'.length;
  const kind = svg.slice(kindStarts, svg.indexOf('"', kindStarts));
  const body = svg.slice(svg.indexOf('>') + 1);
  if (kind === 'text') return kind + body.replace(/>([^<]*)<\/tspan>/g, (_, text) => `>${text.length}</tspan>`);
  if (kind === 'stroke') return kind + body.replace(/ d="([^"]*)"/g, (_, path) => ` d=${path.length}`);
  return kind + body;
}

function paintImage(context, node, environment, matrix) {
  const { attributes } = node;
  const source = environment.image(attributes.href ?? '');
  if (!source) return;
  setMatrix(context, matrix);
  context.drawImage(source, Number(attributes.x ?? 0), Number(attributes.y ?? 0),
    Number(attributes.width ?? 0), Number(attributes.height ?? 0));
}

function paintShape(context, node, style, matrix) {
  const path = pathOf(node);
  if (!path) return;
  setMatrix(context, matrix);
  const { attributes } = node;
  const grain = reference(attributes.filter) === 'grain';
  const neon = reference(attributes.filter) === 'neon';
  const fill = paint(style.fill, style.fillOpacity * (grain ? GRAIN_OPACITY : 1));
  if (fill) {
    if (neon) {
      context.shadowColor = fill;
      context.shadowBlur = 2 * NEON_DEVIATION * scaleOf(matrix);
    }
    setFill(context, fill);
    context.fill(path);
    if (neon) context.shadowBlur = 0;
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

/**
 * Emoji shaped and rasterised once per character, font and pixel size,
 * then copied: shaping text is the costliest thing a canvas does, and a
 * zoomed-out board is mostly emoji. Past `LARGEST` pixels they are drawn
 * as text (few of them fit on a screen).
 */
export class EmojiAtlas {
  static LARGEST = 96;
  static MOST_SPRITES = 2000;

  constructor() {
    /** @type {Map<string, { canvas: HTMLCanvasElement | ImageBitmap, size: number } | null>} */
    this.sprites = new Map();
  }

  /** Paints `text` centred at (x, y) from its sprite; false when it is not
   * an emoji to copy (plain letters, too big, a stroke or a paint order). */
  paint(context, text, font, style, x, y, matrix) {
    const scale = scaleOf(matrix);
    const pixels = style.fontSize * scale;
    if (!(pixels > 0) || pixels > EmojiAtlas.LARGEST || style.stroke !== 'none' || !isEmoji(text)) return false;
    // Sizes in quarter pixels: a sprite scaled by less than 1/8 looks the same.
    const size = Math.max(1, Math.round(pixels * 4) / 4);
    const key = `${size}|${font}|${style.fill}|${style.fillOpacity}|${text}`;
    let sprite = this.sprites.get(key);
    if (sprite === undefined) {
      // Zooming makes new sizes without end: past this many the atlas
      // starts again (the sizes in use are made anew as they are drawn).
      if (this.sprites.size >= EmojiAtlas.MOST_SPRITES) this.forget();
      sprite = this.draw(context, text, font, style, size / style.fontSize);
      this.sprites.set(key, sprite);
      if (sprite) this.copyToBitmap(key, sprite);
    }
    if (!sprite) return false;
    const local = sprite.size / (size / style.fontSize);
    setMatrix(context, matrix);
    context.drawImage(sprite.canvas, x - local / 2, y - local / 2, local, local);
    return true;
  }

  draw(context, text, font, style, scale) {
    const fill = paint(style.fill, style.fillOpacity);
    if (!fill) return null;
    const size = Math.ceil(style.fontSize * scale * 1.5) + 2;
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = size;
    const drawn = context2D(canvas);
    drawn.setTransform(scale, 0, 0, scale, size / 2, size / 2);
    drawn.font = font;
    drawn.textAlign = 'center';
    drawn.textBaseline = 'alphabetic';
    drawn.fillStyle = fill;
    drawn.fillText(text, 0, centralBaseline(drawn, font));
    return { canvas, size };
  }

  /** Copied from a canvas, a sprite costs a snapshot of it each time (about
   * 24 µs a copy, most of a zoomed-out board's drawing); from a bitmap,
   * only the copy. The bitmap replaces the canvas once it is made, unless
   * the sprite was forgotten meanwhile. */
  copyToBitmap(key, sprite) {
    if (typeof createImageBitmap !== 'function') return;
    createImageBitmap(sprite.canvas).then((bitmap) => {
      if (this.sprites.get(key) === sprite) sprite.canvas = bitmap; else bitmap.close();
    }, () => {});
  }

  /** Every sprite dropped, their bitmaps' memory freed at once. */
  forget() {
    for (const sprite of this.sprites.values()) {
      if (sprite && typeof ImageBitmap !== 'undefined' && sprite.canvas instanceof ImageBitmap) sprite.canvas.close();
    }
    this.sprites.clear();
  }
}

/** Whether the text is an emoji or two (no letters to kern or hint). */
function isEmoji(text) {
  return text.length <= 8 && /\p{Extended_Pictographic}/u.test(text) && !/[\p{L}\p{N}]/u.test(text.replace(/[\u{FE0F}\u{200D}]/gu, ''));
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

/** An element's `transform` as a matrix, worked out once and kept. */
function matrixOf(node) {
  node.matrix ??= parseTransform(node.attributes.transform);
  return node.matrix;
}

/** An SVG `transform` attribute as a matrix (its operations left to right). */
export function parseTransform(value) {
  /** @type {Matrix} */
  let matrix = IDENTITY;
  if (!value) return matrix;
  for (const [, name, list] of value.matchAll(/(\w+)\(([^)]*)\)/g)) {
    const n = list.trim().split(/[\s,]+/).map(Number);
    switch (name) {
      case 'translate': matrix = multiply(matrix, [1, 0, 0, 1, n[0] || 0, n[1] || 0]); break;
      case 'rotate': {
        const radians = ((n[0] || 0) * Math.PI) / 180;
        const [cos, sin] = [Math.cos(radians), Math.sin(radians)];
        matrix = multiply(matrix, [cos, sin, -sin, cos, 0, 0]);
        break;
      }
      case 'scale': matrix = multiply(matrix, [n[0] ?? 1, 0, 0, n[1] ?? n[0] ?? 1, 0, 0]); break;
      case 'matrix': if (n.length >= 6) matrix = multiply(matrix, /** @type {Matrix} */ (n.slice(0, 6))); break;
      default: break;
    }
  }
  return matrix;
}

/** `first` then `second`, as `transform="first second"` composes them.
 * @param {Matrix} first @param {Matrix} second @returns {Matrix} */
export function multiply(first, second) {
  const [a, b, c, d, e, f] = first;
  const [a2, b2, c2, d2, e2, f2] = second;
  return [a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e, b * e2 + d * f2 + f];
}

function scaleOf(matrix) {
  return Math.hypot(matrix[0], matrix[1]);
}

function setMatrix(context, m) {
  context.setTransform(m[0], m[1], m[2], m[3], m[4], m[5]);
}

function context2D(canvas) {
  return /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
}
