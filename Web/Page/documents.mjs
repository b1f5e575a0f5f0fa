// Document names as the protocol defines them (Protocol/README.md, 2.1),
// and the recent ones this browser opened.

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const RECENT_KEY = 'easel.recent';

export function isDocumentName(name) {
  return new TextEncoder().encode(name).length <= 128 && name.split('/').every((part) => SEGMENT.test(part));
}

export function recentDocuments() {
  try {
    const names = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(names) ? names.filter((name) => typeof name === 'string' && isDocumentName(name)) : [];
  } catch {
    return [];
  }
}

export function rememberDocument(name) {
  const names = [name, ...recentDocuments().filter((other) => other !== name)].slice(0, 12);
  localStorage.setItem(RECENT_KEY, JSON.stringify(names));
}
