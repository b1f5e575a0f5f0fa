// The documents this browser opened, most recent first. What a document's
// name may be is the protocol's rule, in the module
// (`Easel.documentNameProblem`); only names a canvas opened are kept.

const RECENT_KEY = 'easel.recent';
/** How many recent documents are kept. */
export const RECENT_LIMIT = 12;

/** The recent documents' names; nothing when the stored list is unreadable. */
export function recentDocuments() {
  try {
    const names = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(names) ? names.filter((name) => typeof name === 'string').slice(0, RECENT_LIMIT) : [];
  } catch {
    return [];
  }
}

export function rememberDocument(name) {
  const names = [name, ...recentDocuments().filter((other) => other !== name)].slice(0, RECENT_LIMIT);
  localStorage.setItem(RECENT_KEY, JSON.stringify(names));
}
