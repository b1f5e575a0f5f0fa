// The colour model of the page's picker: colours as the model keeps them
// (0xRRGGBBAA), as hex, and as hue, saturation and brightness; the grid of
// swatches; recent colours. No DOM and no imports: Node tests load it.

/** 0xRRGGBBAA from `#rgb`, `#rrggbb` or `#rrggbbaa` (case-insensitive); null for anything else. */
export function parseHex(text) {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(text.trim());
  if (!match) return null;
  let digits = match[1];
  if (digits.length === 3) digits = [...digits].map((digit) => digit + digit).join('');
  if (digits.length === 6) digits += 'ff';
  return parseInt(digits, 16) >>> 0;
}

/** `#rrggbb`, with `aa` only when the colour is not opaque. */
export function formatHex(rgba) {
  const value = rgba >>> 0;
  const rgb = (value >>> 8).toString(16).padStart(6, '0');
  const alpha = value & 0xff;
  return alpha === 0xff ? `#${rgb}` : `#${rgb}${alpha.toString(16).padStart(2, '0')}`;
}

/** The colour as CSS: `rgba(r, g, b, a)`. */
export function cssColor(rgba) {
  const value = rgba >>> 0;
  return `rgba(${value >>> 24}, ${(value >>> 16) & 0xff}, ${(value >>> 8) & 0xff}, ${+((value & 0xff) / 255).toFixed(3)})`;
}

/** Hue (0–360), saturation and brightness (0–1) and opacity (0–1) as 0xRRGGBBAA. */
export function fromHSB({ hue, saturation, brightness, opacity = 1 }) {
  const h = (((hue % 360) + 360) % 360) / 60;
  const chroma = brightness * saturation;
  const x = chroma * (1 - Math.abs((h % 2) - 1));
  const [r, g, b] = h < 1 ? [chroma, x, 0] : h < 2 ? [x, chroma, 0] : h < 3 ? [0, chroma, x]
    : h < 4 ? [0, x, chroma] : h < 5 ? [x, 0, chroma] : [chroma, 0, x];
  const m = brightness - chroma;
  const byte = (value) => Math.round(Math.min(1, Math.max(0, value)) * 255);
  return ((byte(r + m) << 24) | (byte(g + m) << 16) | (byte(b + m) << 8) | byte(opacity)) >>> 0;
}

/** 0xRRGGBBAA as hue (0–360), saturation, brightness and opacity (0–1). */
export function toHSB(rgba) {
  const value = rgba >>> 0;
  const [r, g, b] = [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff].map((byte) => byte / 255);
  const max = Math.max(r, g, b);
  const chroma = max - Math.min(r, g, b);
  let hue = 0;
  if (chroma > 0) {
    if (max === r) hue = 60 * (((g - b) / chroma) % 6);
    else if (max === g) hue = 60 * ((b - r) / chroma + 2);
    else hue = 60 * ((r - g) / chroma + 4);
  }
  return { hue: (hue + 360) % 360, saturation: max === 0 ? 0 : chroma / max, brightness: max, opacity: (value & 0xff) / 255 };
}

/** The grid of swatches: a row of greys, then rows from deep to pale of twelve hues. */
export function swatchGrid() {
  const greys = Array.from({ length: 12 }, (_, index) =>
    fromHSB({ hue: 0, saturation: 0, brightness: 1 - index / 11 }));
  const hues = Array.from({ length: 12 }, (_, index) => index * 30);
  const shades = [
    { saturation: 1, brightness: 0.45 }, { saturation: 1, brightness: 0.7 }, { saturation: 0.9, brightness: 0.95 },
    { saturation: 0.55, brightness: 1 }, { saturation: 0.25, brightness: 1 },
  ];
  return [greys, ...shades.map((shade) => hues.map((hue) => fromHSB({ hue, ...shade })))];
}

/** How many recent colours the picker keeps. */
export const RECENT = 10;

/** The recent colours with `rgba` first, once, at most `RECENT`. */
export function withRecent(recent, rgba) {
  return [rgba >>> 0, ...recent.filter((colour) => colour >>> 0 !== rgba >>> 0)].slice(0, RECENT);
}

/**
 * The colour at a point of the spectrum (x, y in 0–1): the hue across;
 * down, from white through the pure hue at the middle to black.
 */
export function spectrumColour(x, y, opacity = 1) {
  const clamp = (value) => Math.min(1, Math.max(0, value));
  const across = clamp(x);
  const down = clamp(y);
  return fromHSB({
    hue: across * 360, saturation: down < 0.5 ? down * 2 : 1, brightness: down < 0.5 ? 1 : 2 - down * 2, opacity,
  });
}
