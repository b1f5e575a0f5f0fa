// How a person looks to the others: initials from their name, and a colour
// from it that white initials stay readable on.

/** Up to two letters: the first of the first and last words ("Ada
 * Lovelace" → "AL", "bob" → "B"), whole characters, never half an emoji. */
export function initials(name) {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const ends = words.length > 1 ? [words[0], words[words.length - 1]] : words;
  // An ASCII character followed by another (or by nothing) is a whole
  // character: no segmenter needed, whose first use costs the page's start
  // tens of milliseconds.
  const first = (word) => /^[\x21-\x7e][\x21-\x7e]?$/.test(word.slice(0, 2)) ? word[0]
    : [...new Intl.Segmenter().segment(word)][0].segment;
  const letters = ends.map((word) => first(word).toUpperCase());
  return letters.join('') || '?';
}

/** The contrast ratio of two sRGB colours ([r, g, b], 0–255), as WCAG 2
 * defines it: 1 to 21. */
export function contrast(first, second) {
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((value) => {
      const channel = value / 255;
      return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
  return (lighter + 0.05) / (darker + 0.05);
}

/** The least contrast white initials have on any colour `colourFor` gives:
 * WCAG's AA level for normal text. */
export const INITIALS_CONTRAST = 4.5;

/** A colour from the name ("#rrggbbaa"): its hue from a hash of the name,
 * as light as it can be while white initials keep INITIALS_CONTRAST on it
 * (yellows and greens come out darker than blues). */
export function colourFor(name) {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
  const hue = (hash % 360) / 360;
  let rgb = hslToRgb(hue, 0.6, 0.5);
  for (let lightness = 0.5; contrast(rgb, [255, 255, 255]) < INITIALS_CONTRAST; lightness -= 0.01) {
    rgb = hslToRgb(hue, 0.6, lightness);
  }
  return `#${[...rgb, 255].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

function hslToRgb(h, s, l) {
  const k = (n) => (n + h * 12) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return [f(0), f(8), f(4)];
}

/** This browser's name for its person: the one saved, else a new guest name, saved. */
export function savedUserName() {
  const saved = localStorage.getItem('easel.user');
  if (saved) return saved;
  const name = `Guest ${Math.floor(1000 + Math.random() * 9000)}`;
  localStorage.setItem('easel.user', name);
  return name;
}

/** Keeps the name a person typed (a blank one keeps the name before). */
export function saveUserName(name) {
  localStorage.setItem('easel.user', name.trim() || savedUserName());
}
