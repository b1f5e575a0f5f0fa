// The emoji picker: quick picks, categories, a search by name, and the
// emoji this browser placed last (localStorage), recent first. The choices
// are pure functions Node tests load; `attachEmojiPicker` wires the page's
// popover to them.
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

/**
 * The page's element by ID.
 * @type {(id: string) => any}
 */
const $ = (id) => document.getElementById(id);

/**
 * Wires the tool bar's emoji button and its popover: a pick calls
 * `place(emoji)` and closes it. Returns `{ close }`.
 * @param {(emoji: string) => void} place
 */
export function attachEmojiPicker(place) {
  const picker = $('emoji-picker');
  const recentEmoji = () => { try { return JSON.parse(localStorage.getItem('easel.recentEmoji') ?? '[]'); } catch { return []; } };
  function close() {
    picker.hidden = true;
    $('emoji-more').setAttribute('aria-expanded', 'false');
  }
  const pick = (emoji) => {
    try {
      localStorage.setItem('easel.recentEmoji', JSON.stringify(withRecent(recentEmoji(), emoji)));
    } catch { /* private mode: no recent emoji */ }
    place(emoji);
    close();
  };
  const emojiButton = (emoji) => Object.assign(document.createElement('button'), {
    textContent: emoji, title: emoji, onclick: () => pick(emoji),
  });
  const section = (name, emoji) => {
    const heading = Object.assign(document.createElement('h3'), { textContent: name });
    heading.dataset.category = name;
    const row = Object.assign(document.createElement('div'), { className: 'emoji-row' });
    row.append(...emoji.map(emojiButton));
    return [heading, row];
  };
  function show() {
    const query = $('emoji-search').value.trim();
    const grid = $('emoji-grid');
    if (query) {
      const found = searchEmoji(query);
      grid.replaceChildren(...section(found.length ? `Found: ${found.length}` : 'Nothing by that name', found));
      return;
    }
    const recent = recentEmoji();
    grid.replaceChildren(...(recent.length ? section('Recent', recent) : []),
      ...EMOJI_CATEGORIES.flatMap((category) => section(category.name, category.emoji.map(([emoji]) => emoji))));
  }
  for (const button of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-emoji]'))) {
    button.addEventListener('click', () => pick(button.dataset.emoji));
  }
  $('emoji-tabs').append(...EMOJI_CATEGORIES.map((category) => Object.assign(document.createElement('button'), {
    textContent: category.emoji[0][0], title: category.name,
    onclick: () => {
      $('emoji-search').value = '';
      show();
      $('emoji-grid').querySelector(`h3[data-category="${category.name}"]`)?.scrollIntoView({ block: 'start' });
    },
  })));
  $('emoji-more').addEventListener('click', () => {
    if (!picker.hidden) return close();
    $('emoji-search').value = '';
    show();
    picker.hidden = false;
    $('emoji-more').setAttribute('aria-expanded', 'true');
    $('emoji-search').focus();
  });
  $('emoji-search').addEventListener('input', show);
  $('emoji-search').addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close();
  });
  document.addEventListener('pointerdown', (event) => {
    if (!picker.hidden && !$('palette').contains(/** @type {Node} */ (event.target))) close();
  });
  return { close };
}
