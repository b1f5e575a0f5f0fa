// The document picker: a name opens /d/<name>; recent documents are kept in
// this browser only. A token in the fragment (#token=…) travels on to the
// canvas, never in a query string.
import { recentDocuments, isDocumentName } from './documents.mjs';

const form = document.getElementById('open');
const input = /** @type {HTMLInputElement} */ (document.getElementById('name'));
const problem = document.getElementById('problem');

function open(name) {
  location.assign(`/d/${name}${location.hash}`);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const name = input.value.trim();
  if (!isDocumentName(name)) {
    problem.textContent = 'A name is 1 to 128 characters: letters, digits, ".", "_" and "-", '
      + 'in parts joined by "/", each starting with a letter or digit.';
    return;
  }
  open(name);
});

const recent = recentDocuments();
if (recent.length > 0) {
  document.getElementById('recent-section').hidden = false;
  const list = document.getElementById('recent');
  for (const name of recent) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `/d/${name}`;
    link.textContent = name;
    item.append(link);
    list.append(item);
  }
}
