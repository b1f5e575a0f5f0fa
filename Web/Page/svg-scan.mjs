// Reads the SVG the module's renderer writes into a small tree, for the
// tiled canvas to paint from. Only that renderer's output is read (its
// elements, attributes in double quotes, the five XML entities): it is
// not an XML parser, and needs not be one, since nothing else is given it.

/**
 * @typedef {{ name: string, attributes: Record<string, string>, children: Array<SVGNode | string> }} SVGNode
 */

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Text with its entities replaced (a numeric one as its character). */
export function unescape(text) {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, name) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name] ?? whole;
  });
}

const ATTRIBUTE = /([\w:-]+)="([^"]*)"/g;

/**
 * The elements of `source` as trees (several when it holds several top
 * elements). Unclosed elements are closed at the end; stray closing tags
 * are skipped.
 * @param {string} source
 * @returns {SVGNode[]}
 */
export function scanSVG(source) {
  /** @type {SVGNode} */
  const root = { name: '', attributes: {}, children: [] };
  const open = [root];
  let at = 0;
  while (at < source.length) {
    const tag = source.indexOf('<', at);
    const textEnd = tag < 0 ? source.length : tag;
    if (textEnd > at) {
      const text = source.slice(at, textEnd);
      // Whitespace between elements is the writer's layout, not content.
      // Whitespace between elements is the writer's layout; inside a text,
      // content (spaces are kept as typed).
      const parent = open[open.length - 1];
      if (parent.name === 'tspan' || parent.name === 'text' || (open.length > 1 && text.trim() !== '')) {
        parent.children.push(unescape(text));
      }
    }
    if (tag < 0) break;
    const end = source.indexOf('>', tag);
    if (end < 0) break;
    const inside = source.slice(tag + 1, end);
    at = end + 1;
    if (inside[0] === '/') {
      const name = inside.slice(1).trim();
      let index = open.length - 1;
      while (index > 0 && open[index].name !== name) index -= 1;
      if (index > 0) open.length = index;
      continue;
    }
    if (inside[0] === '!' || inside[0] === '?') continue;
    const selfClosing = inside.endsWith('/');
    const body = selfClosing ? inside.slice(0, -1) : inside;
    const space = body.search(/\s/);
    const name = space < 0 ? body : body.slice(0, space);
    /** @type {Record<string, string>} */
    const attributes = {};
    if (space >= 0) {
      ATTRIBUTE.lastIndex = space;
      for (let match = ATTRIBUTE.exec(body); match; match = ATTRIBUTE.exec(body)) {
        attributes[match[1]] = unescape(match[2]);
      }
    }
    /** @type {SVGNode} */
    const node = { name, attributes, children: [] };
    open[open.length - 1].children.push(node);
    if (!selfClosing) open.push(node);
  }
  return /** @type {SVGNode[]} */ (root.children.filter((child) => typeof child !== 'string'));
}

/** The text an element holds, its descendants' included, in order. */
export function textOf(node) {
  return node.children.map((child) => (typeof child === 'string' ? child : textOf(child))).join('');
}
