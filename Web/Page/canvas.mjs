// The canvas page: loads Easel's WebAssembly module, opens a session for
// the document named in the path, and wires the WebSocket, the input and
// the toolbar to it. Rules live in the module (Docs/web.md).
import { instantiateEasel, Gesture, Tool, DrawingAction, Fit } from './easel.mjs';
import { isDocumentName, rememberDocument } from './documents.mjs';
import { CanvasView, setAttributeIfChanged, setTextIfChanged } from './view.mjs';
import { Connection } from './connection.mjs';
import { attachInput } from './input.mjs';
import { SessionStore } from './store.mjs';
import { colourFor, initials } from './people.mjs';
import { ImageStore } from './images.mjs';
import { ACTIONS, action, actionFor, describe, title } from './actions.mjs';
import { attachEmojiPicker } from './emoji-picker.mjs';
import { SelectionHandles } from './handles.mjs';
import { Toolbar } from './toolbar.mjs';
import { freeSpot, screenPosition } from './placing.mjs';
import { TextEditing } from './text-edit.mjs';
import { attachClipboard } from './clipboard.mjs';
import { attachExportDialog } from './export.mjs';
import { FONTS } from './tools.mjs';
import { ColourPicker } from './colour-picker.mjs';
import { parseHex } from './colour.mjs';
import { attachSaving } from './saving.mjs';

/**
 * An element of the page by ID (each is there: the page is ours).
 * @type {(id: string) => any}
 */
const $ = (id) => document.getElementById(id);

function fail(message) {
  const problem = $('problem');
  problem.textContent = message;
  problem.hidden = false;
}

function randomReplica() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  bytes[7] |= 1; // never 0
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function userName() {
  const saved = localStorage.getItem('easel.user');
  if (saved) return saved;
  const name = `Guest ${Math.floor(1000 + Math.random() * 9000)}`;
  localStorage.setItem('easel.user', name);
  return name;
}

async function start() {
  const name = decodeURIComponent(location.pathname.slice('/d/'.length));
  if (!isDocumentName(name)) return fail(`"${name}" is not a document name.`);
  // A token comes in the fragment, which never reaches a server or a log;
  // it leaves the address bar at once.
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;
  if (location.hash) history.replaceState(null, '', location.pathname);
  $('document-name').textContent = name;
  document.title = `${name} · Easel`;

  const easel = await instantiateEasel(await (await fetch('/static/easel.wasm')).arrayBuffer());
  // The renderer's own filters (neon, grain, blur): the page restates none.
  $('filters').innerHTML = easel.filters();
  const user = userName();
  $('user-name').value = user;
  // Edits an earlier page of this document left unacknowledged (a reload,
  // a closed tab, an offline spell) come back with their replica.
  const store = await SessionStore.open();
  const saved = await store.claim(name);
  const session = easel.openSession({
    document: name, replica: randomReplica(),
    user: { name: user, initials: initials(user), color: colourFor(user) },
    ...(token ? { token } : {}),
  }, Date.now(), saved);
  const replica = session.replica;
  const showSaving = attachSaving({ session, store, document: name, replica, status: $('save-state') });
  rememberDocument(name);

  const images = new ImageStore({
    document: name, token,
    onLoaded: (hex, url) => view.showImage(hex, url),
    isShown: (hex) => view.showsImage(hex),
  });
  const view = new CanvasView($('canvas'), images);
  // The module draws only what is on or near the screen, so it needs the
  // canvas's size, now and whenever it changes.
  new ResizeObserver(([entry]) => {
    session.setCanvasSize(entry.contentRect.width, entry.contentRect.height);
    changed();
  }).observe($('canvas'));
  // What the session has to send goes out at once; the canvas is drawn
  // once a frame, however many events came in it (a pointer can send two
  // or three a frame). The 50 ms tick below draws too, for hidden pages,
  // which get no frames.
  let flushPending = false;
  let drawPending = false;
  const changed = () => {
    if (!flushPending) {
      flushPending = true;
      queueMicrotask(() => { flushPending = false; connection.flush(); });
    }
    if (!drawPending) {
      drawPending = true;
      requestAnimationFrame(() => { drawPending = false; update(); });
    }
  };
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const connection = new Connection(session, `${scheme}://${location.host}/d/${name}`, changed);
  connection.onPlaceFailed = ({ reason }) => fail(`The image was not placed: ${reason}`);
  /** @type {(point: { x: number, y: number }) => void} */
  let startText = () => {};
  const input = attachInput($('canvas'), session, {
    pressMode: () => toolbar.pressMode, changed, isHandling: () => handles.active,
    onText: (point) => startText(point),
    // A shape is drawn one at a time, as in tldraw and Excalidraw: then Select.
    onDrawn: () => { if (toolbar.tool === 'shapes') toolbar.setTool('select'); },
  });
  const handles = new SelectionHandles($('handles'), session, Gesture, changed, () => input.busy());

  // The state key is marked when peers at the same log position hold the
  // same state (✓), and flagged when one holds another (≠): diverged.
  function showAgreement(peers) {
    const same = peers.filter((peer) => peer.state === 'same').map((peer) => peer.name);
    const diverged = peers.filter((peer) => peer.state === 'diverged').map((peer) => peer.name);
    const key = $('state-key');
    setAttributeIfChanged(key, 'data-agreement', diverged.length ? 'diverged' : same.length ? 'same' : '');
    setAttributeIfChanged(key, 'title',
      diverged.length ? `A different state from ${diverged.join(', ')} at the same point: diverged`
        : same.length ? `The same state as ${same.join(', ')}` : 'The document\'s state, as four emoji');
  }

  // User Timing marks for `Web/bench/frames.py`: the first render after
  // the welcome, and the frame that painted it.
  let firstPaint = false;
  function markFirstPaint() {
    if (firstPaint || session.connectionState === 'offline' || session.connectionState === 'connecting') return;
    firstPaint = true;
    performance.mark('easel:first-render');
    requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('easel:first-paint')));
  }

  // Without a token the server accepts (none, expired, another
  // document's), retrying cannot help: stop, and ask for one. It goes into
  // the fragment, like a token in a link, never into a query string.
  const AUTHENTICATION_ERRORS = [300, 301, 302];
  let askedForToken = false;
  function askForTokenIfRefused() {
    const error = session.lastError;
    if (askedForToken || !error || !AUTHENTICATION_ERRORS.includes(error.code)) return;
    askedForToken = true;
    connection.setOnline(false);
    $('token-reason').textContent = error.message;
    $('token-form').hidden = false;
    $('token-input').focus();
  }
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = new URLSearchParams({ token: $('token-input').value.trim() }).toString();
    location.reload();
  });

  let keyShownAt = -Infinity;
  function update() {
    askForTokenIfRefused();
    connection.flush();
    view.apply(session.render());
    markFirstPaint();
    view.preview(session.preview());
    const viewport = session.viewport();
    view.setViewport(viewport);
    const selection = session.selection;
    const flags = session.flags;
    view.setSelection(selection);
    handles.update(viewport);
    toolbar.update(flags, selection.join(' '));
    const peers = session.peers();
    view.setPeers(peers, viewport);
    showAgreement(peers);
    for (const element of actionElements) {
      const enabled = element.action.enabled?.(flags) ?? true;
      if (element.hides) element.node.hidden = !enabled; else element.node.disabled = !enabled;
    }
    setTextIfChanged($('zoom-level'), `${Math.round(viewport[2] * 100)}%`);
    const state = session.connectionState;
    showSaving(flags, state);
    setAttributeIfChanged($('connection'), 'data-state', state);
    setTextIfChanged($('connection'), state);
    // Hashing costs time in proportion to the document: the key follows
    // the document at most twice a second, and waits while a gesture is in
    // flight.
    if (!flags.gestureInFlight && performance.now() - keyShownAt >= 500) {
      keyShownAt = performance.now();
      setTextIfChanged($('state-key'), session.emojiKey);
    }
  }

  const screenCentre = () => {
    const box = $('canvas').getBoundingClientRect();
    return { x: box.width / 2, y: box.height / 2 };
  };
  /** Runs a command by name with named arguments (`COMMANDS`), and redraws. */
  const perform = (name, named = {}) => {
    session.perform(name, named);
    changed();
  };
  const colourPicker = new ColourPicker();
  const toolbar = new Toolbar({ easel, session, numbers: { Tool, DrawingAction }, perform });
  // The page's menu: the background and clearing everything.
  const pageMenu = $('page-menu');
  const closePageMenu = () => {
    pageMenu.hidden = true;
    $('page-menu-button').setAttribute('aria-expanded', 'false');
  };
  $('page-menu-button').addEventListener('click', () => {
    pageMenu.hidden = !pageMenu.hidden;
    $('page-menu-button').setAttribute('aria-expanded', String(!pageMenu.hidden));
  });
  document.addEventListener('pointerdown', (event) => {
    if (!pageMenu.hidden && !$('page-menu-holder').contains(event.target)) closePageMenu();
  });
  // What is placed becomes the selection, as in tldraw and Excalidraw.
  session.perform('selectPlaced', { on: true });
  // A new item goes to the middle of the view, stepped off any item
  // already centred there.
  const placingSpot = () => {
    const viewport = session.viewport();
    const taken = [...view.elements.values()]
      .map((element) => screenPosition(element.getAttribute('transform'), viewport)).filter(Boolean);
    return freeSpot(screenCentre(), taken);
  };
  const placeEmoji = (emoji) => {
    perform('placeEmoji', { ...placingSpot(), size: 48, emoji });
  };
  const { close: closePicker } = attachEmojiPicker(placeEmoji);
  // Images: picked, dropped or pasted. The bytes are kept in the browser
  // and uploaded; the image shows at once here, and the session holds its
  // place back from everyone else until the server has stored them.
  const uploads = new Map(); // hex → { name, fraction }
  function showUploads() {
    const status = $('upload');
    status.hidden = uploads.size === 0;
    status.textContent = [...uploads.values()]
      .map(({ name: file, fraction }) => `Uploading ${file} ${Math.round(fraction * 100)}%`).join(' · ');
  }
  async function upload(hex, blob, label) {
    uploads.set(hex, { name: label, fraction: 0 });
    showUploads();
    try {
      await images.upload(hex, blob, (fraction) => {
        uploads.set(hex, { name: label, fraction });
        showUploads();
      });
      session.blobStored(hex);
    } catch (error) {
      session.blobFailed(hex, error.message);
    } finally {
      uploads.delete(hex);
      showUploads();
      changed();
    }
  }
  const readable = (file) => createImageBitmap(file).catch(() => {
    throw new Error(`${file.name || 'the pasted data'} is not an image this browser can read`);
  });
  async function placeImage(file, at = placingSpot()) {
    try {
      const bitmap = await readable(file);
      // At most 60% of the canvas, or 480 pixels, on screen at this zoom.
      const box = $('canvas').getBoundingClientRect();
      const zoom = session.viewport()[2];
      const fit = Math.min(1, 480 / Math.max(bitmap.width, bitmap.height),
        (box.width * 0.6) / bitmap.width, (box.height * 0.6) / bitmap.height);
      const hex = await ImageStore.hash(await file.arrayBuffer());
      await images.keep(hex, file);
      if (!session.placeImage(hex, at.x, at.y, (bitmap.width * fit) / zoom, (bitmap.height * fit) / zoom)) {
        throw new Error('the editor refused the image');
      }
      changed();
      await upload(hex, file, file.name || 'image');
    } catch (error) {
      fail(`The image was not placed: ${error.message}`);
    }
  }
  // The background image: its pixels at one document unit each (at most
  // 2,000 on the longer side), centred at the document's origin.
  async function setBackgroundImage(file) {
    try {
      const bitmap = await readable(file);
      const fit = Math.min(1, 2000 / Math.max(bitmap.width, bitmap.height));
      const hex = await ImageStore.hash(await file.arrayBuffer());
      await images.keep(hex, file);
      if (!session.setBackgroundImage(hex, bitmap.width * fit, bitmap.height * fit, Fit[$('background-fit').value])) {
        throw new Error('the editor refused the background');
      }
      changed();
      await upload(hex, file, file.name || 'background');
    } catch (error) {
      fail(`The background was not set: ${error.message}`);
    }
  }
  $('background-file').addEventListener('change', () => {
    const [file] = $('background-file').files;
    if (file) setBackgroundImage(file);
    $('background-file').value = '';
  });
  $('background-color').addEventListener('change', () => {
    const rgba = parseHex($('background-color').value) ?? 0xffffffff;
    perform('backgroundColor', { color: rgba | 0 });
  });
  $('background-none').addEventListener('click', () => perform('backgroundNoImage'));
  // A page reloaded mid-upload resumes it from the bytes the browser kept.
  for (const hex of session.awaitedBlobs) {
    images.cached(hex).then((blob) => blob
      ? upload(hex, blob, 'image')
      : session.blobFailed(hex, 'its bytes were not kept by this browser'));
  }
  for (const id of ['image-file', 'image-file-picked']) {
    $(id).addEventListener('change', () => {
      for (const file of $(id).files) placeImage(file);
      $(id).value = '';
      closePicker();
    });
  }
  $('canvas').addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
  });
  $('canvas').addEventListener('drop', (event) => {
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    const box = $('canvas').getBoundingClientRect();
    for (const file of files) placeImage(file, { x: event.clientX - box.left, y: event.clientY - box.top });
  });
  // Copy, cut and paste (clipboard.mjs): a paste goes where the pointer is
  // over the canvas, else to the middle of the view.
  // Only the client point is kept per move: measuring the canvas then
  // would force a layout on every event; a paste measures once.
  let pointerOnCanvas = null;
  $('canvas').addEventListener('pointermove', (event) => {
    pointerOnCanvas = { clientX: event.clientX, clientY: event.clientY };
  });
  $('canvas').addEventListener('pointerleave', () => { pointerOnCanvas = null; });
  attachClipboard({
    session, changed, fail,
    spot: () => {
      if (!pointerOnCanvas) return placingSpot();
      const box = $('canvas').getBoundingClientRect();
      return { x: pointerOnCanvas.clientX - box.left, y: pointerOnCanvas.clientY - box.top };
    },
    placeFiles: (files, at) => { for (const file of files) placeImage(file, at); },
    placeText: (text, at) => perform('placeText',
      { x: at.x, y: at.y, size: toolbar.choices.textSize, text, font: toolbar.choices.font }),
  });
  // Buttons and menu items run the action they name (actions.mjs), the
  // one table the keyboard reads too.
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  const shortcutsDialog = $('shortcuts-dialog');
  for (const listed of ACTIONS.filter((found) => found.shortcuts.length)) {
    const row = $('shortcuts-list').insertRow();
    row.insertCell().textContent = listed.label;
    row.insertCell().append(...listed.shortcuts.map((shortcut) =>
      Object.assign(document.createElement('kbd'), { textContent: describe(shortcut, mac) })));
  }
  const context = {
    session,
    centre: screenCentre,
    zoom: () => session.viewport()[2],
    setTool: (id) => toolbar.setTool(id),
    editText: () => textEditing.startSelected(),
    // From a button: the browser's own clipboard commands, which fire the
    // events clipboard.mjs handles (a page may not paste this way).
    clipboard: (verb) => document.execCommand(verb),
    showExport: () => showExport(),
    showShortcuts: () => { if (!shortcutsDialog.open) shortcutsDialog.showModal(); },
  };
  const run = (found) => {
    input.settle();
    if (found.enabled && !found.enabled(session.flags)) return;
    found.run(context);
    changed();
  };
  const actionElements = [.../** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('[data-action]'))].map((node) => {
    const found = action(node.dataset.action);
    if (node.getAttribute('role') === 'menuitem') {
      node.textContent = found.label;
      if (found.shortcuts.length) node.append(Object.assign(document.createElement('kbd'), { textContent: describe(found.shortcuts[0], mac) }));
    } else {
      node.title = title(found, mac);
    }
    node.addEventListener('click', () => {
      run(found);
      if (node.getAttribute('role') === 'menuitem') closeZoomMenu();
    });
    return { node, action: found, hides: node.hasAttribute('data-hide-when-disabled') };
  });
  const zoomMenu = $('zoom-menu');
  function closeZoomMenu() {
    zoomMenu.hidden = true;
    $('zoom-level').setAttribute('aria-expanded', 'false');
  }
  $('zoom-level').title = 'Zoom: in, out, 100 %, to fit, to the selection';
  $('zoom-level').addEventListener('click', (event) => {
    event.stopPropagation();
    zoomMenu.hidden = !zoomMenu.hidden;
    $('zoom-level').setAttribute('aria-expanded', String(!zoomMenu.hidden));
  });
  document.addEventListener('pointerdown', (event) => {
    if (!zoomMenu.hidden && !$('zoom').contains(event.target)) closeZoomMenu();
  });
  // Export (export.mjs): the canvas or the selection, as PNG or SVG.
  const { exportNow, showExport, dialog: exportDialog } = attachExportDialog({
    session, document: name, blob: (hex) => images.fetchChecked(hex), fonts: FONTS,
    beforeOpen: () => closePageMenu(),
  });

  // Clear all asks once more on the button itself: no dialog box.
  let clearArmed = null;
  $('clear').addEventListener('click', () => {
    if (clearArmed) {
      clearTimeout(clearArmed);
      clearArmed = null;
      $('clear').textContent = 'Clear all';
      perform('clearAll');
    } else {
      $('clear').textContent = 'Really clear?';
      clearArmed = setTimeout(() => { clearArmed = null; $('clear').textContent = 'Clear all'; }, 3000);
    }
  });
  // Text typed in place (text-edit.mjs): the Text tool's tap, a double
  // click on a text (or on empty canvas, for a new one), or Enter.
  const textEditing = new TextEditing({
    session, editor: $('text-editor'), toolbar, perform,
    hide: (id, hidden) => view.elements.get(id)?.classList.toggle('editing', hidden),
  });
  startText = (point) => textEditing.startNew(point);
  $('canvas').addEventListener('dblclick', (event) => {
    if (toolbar.pressMode !== 'select') return;
    const box = $('canvas').getBoundingClientRect();
    const point = { x: event.clientX - box.left, y: event.clientY - box.top };
    // The canvas holds the pointer while pressed, so the event's target is
    // the canvas: what lies under the point says what was double-clicked.
    const under = document.elementsFromPoint(event.clientX, event.clientY);
    if (under.some((element) => element.closest('#handles .handle'))) return;
    const group = under.map((element) => element.closest('#entities > g')).find(Boolean);
    if (group?.classList.contains('text')) {
      // The two clicks before toggled it: it alone is selected, then edited.
      session.perform('clearSelection');
      session.gesture(Gesture.tap, point.x, point.y);
      textEditing.startSelected();
      changed();
    } else if (!group) {
      textEditing.startNew(point);
    }
  });
  $('user-name').addEventListener('change', () => {
    localStorage.setItem('easel.user', $('user-name').value.trim() || userName());
  });
  document.addEventListener('keydown', (event) => {
    const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement
      || event.target instanceof HTMLSelectElement;
    if (typing || shortcutsDialog.open || exportDialog.open) return;
    if (event.key === 'Escape' && !zoomMenu.hidden) {
      closeZoomMenu();
      return;
    }
    const found = actionFor(event);
    // Copy, cut and paste go on as the browser's clipboard events.
    if (!found || found.native) return;
    event.preventDefault();
    run(found);
  });

  setInterval(() => {
    session.tick();
    update();
  }, 50);
  update();
  // For tests and for people debugging in the console.
  /** @type {any} */ (window).easel = { session, connection, view, images, handles, exportNow, colourPicker };
}

start().catch((error) => fail(`The canvas could not start: ${error.message}`));
