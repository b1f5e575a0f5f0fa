// The canvas page: loads Easel's WebAssembly module, opens a session for
// the document named in the path, and wires the page's parts to it — the
// connection, the input, the tools, the handles, text, images, menus, the
// keyboard, export, saving. Each part is its own module; rules live in the
// WebAssembly module (Docs/web.md). This file only puts them together and
// draws a frame.
import { instantiateCompiledEasel } from './easel.mjs';
import { rememberDocument } from './documents.mjs';
import { CanvasView, setAttributeIfChanged, setTextIfChanged } from './view.mjs';
import { Connection, takeEarlySocket } from './connection.mjs';
import { attachInput } from './input.mjs';
import { SessionStore } from './store.mjs';
import { colourFor, initials, savedUserName, saveUserName } from './people.mjs';
import { ImageStore } from './images.mjs';
import { attachEmojiPicker } from './emoji-picker.mjs';
import { SelectionHandles } from './handles.mjs';
import { Toolbar } from './toolbar.mjs';
import { TextEditing } from './text-edit.mjs';
import { attachClipboard } from './clipboard.mjs';
import { attachExportDialog } from './export.mjs';
import { FONTS } from './tools.mjs';
import { ColourPicker } from './colour-picker.mjs';
import { attachSaving } from './saving.mjs';
import { attachUploads } from './uploads.mjs';
import { attachMenus } from './menus.mjs';
import { attachActions } from './keyboard.mjs';
import { attachAccess, takeTokenFromAddress } from './access.mjs';

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

/** The state key is marked when peers at the same log position hold the
 * same state (✓), and flagged when one holds another (≠): diverged. */
function showAgreement(peers) {
  const same = peers.filter((peer) => peer.state === 'same').map((peer) => peer.name);
  const diverged = peers.filter((peer) => peer.state === 'diverged').map((peer) => peer.name);
  const key = $('state-key');
  setAttributeIfChanged(key, 'data-agreement', diverged.length ? 'diverged' : same.length ? 'same' : '');
  setAttributeIfChanged(key, 'title',
    diverged.length ? `A different state from ${diverged.join(', ')} at the same point: diverged`
      : same.length ? `The same state as ${same.join(', ')}` : 'The document\'s state, as four emoji');
}

async function start() {
  const name = decodeURIComponent(location.pathname.slice('/d/'.length));
  const token = takeTokenFromAddress();
  // The store opens while the module compiles (IndexedDB takes about 0.1 s).
  const storeOpening = SessionStore.open();
  const easel = await instantiateCompiledEasel();
  performance.mark('easel:module-ready');
  const problem = easel.documentNameProblem(name);
  if (problem !== null) {
    takeEarlySocket()?.close();
    return fail(`"${name}" is not a document name: ${problem}.`);
  }
  $('document-name').textContent = name;
  document.title = `${name} · Easel`;
  // The renderer's own filters (neon, grain, blur): the page restates none.
  $('filters').innerHTML = easel.filters();
  const user = savedUserName();
  $('user-name').value = user;
  $('user-name').addEventListener('change', () => saveUserName($('user-name').value));
  // Edits an earlier page of this document left unacknowledged (a reload,
  // a closed tab, an offline spell) come back with their replica.
  const store = await storeOpening;
  const saved = await store.claim(name);
  const session = easel.openSession({
    document: name, user: { name: user, initials: initials(user), color: colourFor(user) },
    ...(token ? { token } : {}),
  }, Date.now(), saved);
  const showSaving = attachSaving({ session, store, document: name, replica: session.replica, status: $('save-state') });
  rememberDocument(name);

  const canvas = $('canvas');
  const images = new ImageStore({
    easel, document: name, token,
    onLoaded: (hex, url) => view.showImage(hex, url),
    isShown: (hex) => view.showsImage(hex),
  });
  const view = new CanvasView(canvas, images);
  // The module draws only what is on or near the screen, so it needs the
  // canvas's size, now and whenever it changes.
  new ResizeObserver(([entry]) => {
    session.setCanvasSize(entry.contentRect.width, entry.contentRect.height);
    view.setSize(entry.contentRect.width, entry.contentRect.height);
    changed();
  }).observe(canvas);
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
  /** Runs a command by name with named arguments (the module's interface), and redraws. */
  const perform = (command, named = {}) => {
    session.perform(command, named);
    changed();
  };
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const connection = new Connection(session, `${scheme}://${location.host}/d/${name}`, changed,
    (failures) => easel.retryDelay('reconnect', failures));
  // The hello goes now, not after the page's setup below (a tenth of a
  // second or more): the server answers while the page builds its tools.
  connection.flush();
  connection.onPlaceFailed = ({ reason }) => fail(`The image was not placed: ${reason}`);
  const checkAccess = attachAccess({ session, connection });

  const colourPicker = new ColourPicker();
  const { tool, drawingAction } = easel.interface.enums;
  const toolbar = new Toolbar({ easel, session, numbers: { Tool: tool, DrawingAction: drawingAction }, perform });
  const textEditing = new TextEditing({
    session, editor: $('text-editor'), toolbar, perform,
    hide: (id, hidden) => view.hide(id, hidden),
  });
  textEditing.view = view;
  textEditing.editOnDoubleClick(canvas, changed);
  view.typedGlyphs = (id) => textEditing.glyphs(id);
  view.typedState = () => textEditing.typedState();
  connection.beforeReceive = () => textEditing.flush();
  connection.afterReceive = () => textEditing.refresh();
  const input = attachInput(canvas, session, {
    pressMode: () => toolbar.pressMode, changed, isHandling: () => handles.active,
    onText: (point) => textEditing.startNew(point),
    // A shape is drawn one at a time, as in tldraw and Excalidraw: then Select.
    onDrawn: () => { if (toolbar.tool === 'shapes') toolbar.setTool('select'); },
  });
  const handles = new SelectionHandles($('handles'), session, changed, () => input.busy());

  // What is placed becomes the selection, as in tldraw and Excalidraw, and
  // goes to the middle of the view, stepped off any item centred there.
  session.perform('selectPlaced', { on: true });
  const screenCentre = () => {
    const box = canvas.getBoundingClientRect();
    return { x: box.width / 2, y: box.height / 2 };
  };
  const placingSpot = () => session.placingSpot(screenCentre());
  const { close: closePicker } = attachEmojiPicker((emoji) => perform('placeEmoji', { ...placingSpot(), size: 48, emoji }));
  const { placeImage } = attachUploads({
    session, images, ImageStore, canvas, spot: placingSpot, changed, fail, afterPick: closePicker,
  });
  // A paste goes where the pointer is over the canvas, else to the middle
  // of the view. Only the client point is kept per move: measuring the
  // canvas then would force a layout on every event; a paste measures once.
  let pointerOnCanvas = null;
  canvas.addEventListener('pointermove', (event) => { pointerOnCanvas = { x: event.clientX, y: event.clientY }; });
  canvas.addEventListener('pointerleave', () => { pointerOnCanvas = null; });
  attachClipboard({
    session, changed, fail,
    spot: () => {
      if (!pointerOnCanvas) return placingSpot();
      const box = canvas.getBoundingClientRect();
      return { x: pointerOnCanvas.x - box.left, y: pointerOnCanvas.y - box.top };
    },
    placeFiles: (files, at) => { for (const file of files) placeImage(file, at); },
    placeText: (text, at) => perform('placeText',
      { x: at.x, y: at.y, size: toolbar.choices.textSize, text, font: toolbar.choices.font }),
  });

  const { pageMenu, zoomMenu } = attachMenus({ perform });
  const { exportNow, showExport, dialog: exportDialog } = attachExportDialog({
    session, document: name, blob: (hex) => images.fetchChecked(hex), fonts: FONTS,
    beforeOpen: () => pageMenu.close(),
  });
  const shortcutsDialog = $('shortcuts-dialog');
  const updateActions = attachActions({
    session,
    context: {
      session,
      centre: screenCentre,
      setTool: (id) => toolbar.setTool(id),
      editText: () => textEditing.startSelected(),
      // From a button: the browser's own clipboard commands, which fire the
      // events clipboard.mjs handles (a page may not paste this way).
      clipboard: (verb) => document.execCommand(verb),
      showExport: () => showExport(),
      showShortcuts: () => { if (!shortcutsDialog.open) shortcutsDialog.showModal(); },
    },
    before: () => input.settle(),
    changed,
    isBlocked: () => shortcutsDialog.open || exportDialog.open,
    onMenuItem: () => zoomMenu.close(),
    onEscape: () => {
      const open = [zoomMenu, pageMenu].filter((shown) => shown.isOpen());
      for (const shown of open) shown.close();
      return open.length > 0;
    },
  });

  // User Timing marks for `Web/bench/frames.py`: the first render after
  // the welcome (with the time the welcome took to take in), and the frame
  // that painted it.
  let firstPaint = false;
  let renderingMs = 0;
  let moduleRenderingMs = 0;
  function markFirstPaint() {
    if (firstPaint || session.connectionState === 'offline' || session.connectionState === 'connecting') return;
    firstPaint = true;
    performance.mark('easel:first-render', {
      detail: { receivingMs: connection.receivingMs, renderingMs, moduleRenderingMs,
        moduleBytes: easel.exports.memory.buffer.byteLength },
    });
    const painted = () => requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('easel:first-paint')));
    // Tiles draw over several frames: painted once those on screen are.
    if (view.tiled) {
      view.onTilesComplete = () => {
        view.onTilesComplete = null;
        painted();
      };
    } else {
      painted();
    }
  }

  let keyShownAt = -Infinity;
  let keyInterval = 500;
  function update() {
    const flags = session.flags;
    checkAccess(flags);
    connection.flush();
    const rendering = performance.now();
    const changes = session.render();
    const rendered = performance.now();
    const waiting = session.waiting;
    view.apply(changes, rendered, waiting);
    if (!firstPaint) {
      moduleRenderingMs = rendered - rendering;
      renderingMs = performance.now() - rendering;
    }
    markFirstPaint();
    // A pan or zoom that shows thousands more is drawn a few thousand a
    // frame, and so are those around the screen after a welcome (the
    // module draws the screen's first).
    if (waiting > 0) changed();
    view.preview(session.preview());
    const viewport = session.viewport();
    view.setViewport(viewport);
    const selection = session.selection;
    view.setSelection(selection);
    handles.update();
    toolbar.update(flags, selection.join(' '));
    const peers = session.peers();
    view.setPeers(peers);
    showAgreement(peers);
    updateActions(flags);
    setTextIfChanged($('zoom-level'), `${Math.round(viewport[2] * 100)}%`);
    const state = session.connectionState;
    showSaving(flags, state);
    setAttributeIfChanged($('connection'), 'data-state', state);
    setTextIfChanged($('connection'), state);
    // Hashing costs time in proportion to the document: the key follows
    // the document at most twice a second, and waits while a gesture is in
    // flight.
    if (!flags.gestureInFlight && performance.now() - keyShownAt >= keyInterval) {
      const started = performance.now();
      setTextIfChanged($('state-key'), session.emojiKey);
      keyShownAt = performance.now();
      // On a big document the hash takes long (several milliseconds at
      // 10,000 entities, tens at 50,000), and a frame that hashes is
      // likely late: waited on 1,000 times as long, it costs at most about
      // one frame in a thousand.
      keyInterval = Math.max(500, 1000 * (keyShownAt - started));
    }
  }

  setInterval(() => {
    session.tick();
    update();
  }, 50);
  update();
  // For tests and for people debugging in the console.
  /** @type {any} */ (window).easel = { session, connection, view, images, handles, exportNow, colourPicker, module: easel };
}

start().catch((error) => fail(`The canvas could not start: ${error.message}`));
