// What the emoji picker shows: categories, a search by name, and the
// emoji this browser placed last. No DOM: Node tests load it as it is.
import { EMOJI_CATEGORIES } from './emoji-data.mjs';

/** How many recent emoji the picker keeps. */
export const RECENT_LIMIT = 24;

/** Every emoji with its name, in category order. */
export const ALL_EMOJI = EMOJI_CATEGORIES.flatMap((category) => category.emoji);

/**
 * The emoji whose name holds every word of the query (case aside), in
 * category order; every emoji for an empty query.
 */
export function searchEmoji(query) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return ALL_EMOJI.map(([emoji]) => emoji);
  return ALL_EMOJI.filter(([emoji, name]) => words.every((word) => name.includes(word) || emoji === word))
    .map(([emoji]) => emoji);
}

/** The recent list after placing `emoji`: it first, no repeats, at most RECENT_LIMIT. */
export function withRecent(recent, emoji) {
  return [emoji, ...recent.filter((other) => other !== emoji)].slice(0, RECENT_LIMIT);
}
