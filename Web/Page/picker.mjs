// The document picker: a name opens /d/<name>; recent documents are kept in
// this browser only. A token in the fragment (#token=…) travels on to the
// canvas, never in a query string. Whether a name is one is the protocol's
// rule, asked of the module, which loads meanwhile (and is then in the
// browser's cache for the canvas); should it not load, the canvas judges.
import { instantiateEasel, moduleAddress } from './easel.mjs';
import { recentDocuments } from './documents.mjs';

const form = document.getElementById('open');
const input = /** @type {HTMLInputElement} */ (document.getElementById('name'));
const problem = document.getElementById('problem');

const loading = fetch(moduleAddress())
  .then((response) => response.arrayBuffer())
  .then((bytes) => instantiateEasel(bytes))
  .catch(() => null);

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = input.value.trim();
  const easel = await loading;
  const reason = easel?.documentNameProblem(name) ?? null;
  if (reason !== null) {
    problem.textContent = `${reason[0].toUpperCase()}${reason.slice(1)}.`;
    return;
  }
  location.assign(`/d/${name}${location.hash}`);
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
