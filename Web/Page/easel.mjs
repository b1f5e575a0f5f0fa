// Easel's WebAssembly module behind a small JavaScript face: the same code
// for the page and for Node. Everything crosses as numbers and byte
// buffers; no model, protocol or rendering rule lives here (Docs/web.md).

const ENOSYS = 52;

/**
 * Where the page loads the module from: `easel.wasm`, or, when the page's
 * address ends in `?debug`, `easel.debug.wasm`, which names its functions
 * in stack traces (Web/build.sh).
 * @returns {string}
 */
export function moduleAddress() {
  return new URLSearchParams(location.search).has('debug') ? '/static/easel.debug.wasm' : '/static/easel.wasm';
}

/**
 * Instantiates the module from its bytes. With `checkCalls`, every call
 * into the module is held against the interface's parameter list and a
 * call with another number of arguments throws (the Node tests use it; a
 * WebAssembly function otherwise takes a missing argument as 0 silently).
 */
export async function instantiateEasel(bytes, { checkCalls = false } = {}) {
  return instantiateWith((imports) => WebAssembly.instantiate(bytes, imports), checkCalls);
}

/** @type {Promise<WebAssembly.Module> | null} */
let compiling = null;

/**
 * Starts compiling the page's module as it downloads, once (`boot.mjs`
 * calls it before the page's other scripts have loaded; the server says
 * `application/wasm`, which streaming needs).
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileEasel() {
  compiling ??= WebAssembly.compileStreaming(fetch(moduleAddress()));
  return compiling;
}

/** Instantiates the page's module, compiled by `compileEasel`. */
export async function instantiateCompiledEasel() {
  const module = await compileEasel();
  return instantiateWith(async (imports) => ({ instance: await WebAssembly.instantiate(module, imports) }), false);
}

/** @param {(imports: any) => Promise<{ instance: WebAssembly.Instance }>} instantiate @param {boolean} checkCalls */
async function instantiateWith(instantiate, checkCalls) {
  let memory;
  // The four WASI functions wasi-libc links in: nothing here writes files,
  // so all but randomness (replica IDs) answer "not supported".
  const wasi = {
    fd_close: () => ENOSYS,
    fd_seek: () => ENOSYS,
    fd_write: () => ENOSYS,
    random_get: (pointer, length) => {
      globalThis.crypto.getRandomValues(new Uint8Array(memory.buffer, pointer, length));
      return 0;
    },
  };
  const { instance } = await instantiate({ wasi_snapshot_preview1: wasi });
  /** @type {any} */
  const exports = instance.exports;
  memory = exports.memory;
  exports.easel_interface();
  const table = JSON.parse(new TextDecoder().decode(resultBytes(exports)));
  return new Easel(checkCalls ? checked(exports, table.exports) : exports, table);
}

/** The result buffer where the last call left it: a view, valid until the next call. */
function resultBytes(exports) {
  return new Uint8Array(exports.memory.buffer, exports.easel_result_pointer(), exports.easel_result_length());
}

/** The exports, each call checked against its declared parameters. */
function checked(exports, declared) {
  /** @type {Record<string, any>} */
  const wrapped = { memory: exports.memory };
  for (const [name, parameters] of Object.entries(declared)) {
    const call = exports[name];
    if (typeof call !== 'function') throw new Error(`the interface declares ${name}, which the module lacks`);
    wrapped[name] = (...args) => {
      if (args.length !== parameters.length) {
        throw new Error(`${name}(${parameters.join(', ')}) called with ${args.length} arguments`);
      }
      return call(...args);
    };
  }
  return wrapped;
}

export const Encoding = Object.freeze({ binary: 0, json: 1 });

/**
 * The module's interface, read from the module itself (`easel_interface`,
 * declared once in Web/Bridge/Interface.swift): `exports` (name → its
 * parameters), `gestures` and `commands` by name (a command's `kind` and
 * the slot each named argument fills), `flags` (name → bit), `status`
 * (what a call answers), `blobFailures`, `retryPolicies` and `enums`
 * (tool, shape, textStyle, alignment, fit, drawingAction: name → raw
 * value; connectionState: the names in order).
 * @typedef {{ exports: Record<string, string[]>, gestures: Record<string, number>,
 *   commands: Record<string, { kind: number, args: Record<string, string> }>,
 *   flags: Record<string, number>, status: Record<string, number>,
 *   blobFailures: Record<string, { code: number, transient: boolean }>,
 *   retryPolicies: Record<string, number>, enums: Record<string, any> }} Interface
 */

export class Easel {
  /** @param {any} exports @param {Interface} table */
  constructor(exports, table) {
    this.exports = exports;
    this.interface = table;
  }

  /** Why `name` is not a document name (Protocol/README.md, 2.1), or null when it is one. */
  documentNameProblem(name) {
    const problem = this.withBytes(encoder.encode(name), (pointer, length) =>
      this.exports.easel_document_name_problem(pointer, length));
    return problem === 0 ? null : text.decode(this.result());
  }

  /** A fresh replica ID, 16 hex digits: random, never 0. */
  newReplica() {
    return BigInt.asUintN(64, this.exports.easel_new_replica()).toString(16).padStart(16, '0');
  }

  /**
   * How long to wait, in milliseconds, after `failures` failures in a row
   * under a retry policy (`reconnect`, `blobTransfer`, `blobShown`), jittered; null when
   * its tries are spent. The Swift clients wait by the same rule.
   */
  retryDelay(policy, failures) {
    const index = this.interface.retryPolicies[policy];
    if (index === undefined) throw new Error(`no retry policy "${policy}"`);
    const delay = this.exports.easel_retry_delay(index, failures);
    return delay < 0 ? null : delay;
  }

  /**
   * What an HTTP status answering a blob request means: null for a
   * success, else `{ failure, transient }` (`transient`: another try may
   * help). Status 0 stands for no answer: the server could not be reached.
   */
  blobFailure(status) {
    const code = this.exports.easel_blob_failure(status);
    if (code === 0) return null;
    const [failure, { transient }] = Object.entries(this.interface.blobFailures).find(([, entry]) => entry.code === code);
    return { failure, transient };
  }

  /** Runs `body` with `bytes` copied into the module's memory. */
  withBytes(bytes, body) {
    const pointer = this.exports.easel_alloc(bytes.length);
    try {
      new Uint8Array(this.exports.memory.buffer, pointer, bytes.length).set(bytes);
      return body(pointer, bytes.length);
    } finally {
      this.exports.easel_free(pointer);
    }
  }

  /**
   * Decodes one message: `{ code: 0 }` when it reads, otherwise the
   * protocol's error code and the batch the refusal names (a decimal
   * string, as in JSON), if any.
   */
  decode(bytes, encoding = Encoding.binary) {
    const code = this.withBytes(bytes, (pointer, length) => this.exports.easel_decode(pointer, length, encoding));
    if (code === 0) return { code };
    const named = this.exports.easel_refused_batch_present() !== 0;
    return { code, batch: named ? BigInt.asUintN(64, this.exports.easel_refused_batch()).toString() : undefined };
  }

  /** A new, empty document. */
  openDocument() {
    return new WasmDocument(this, this.exports.easel_document_open());
  }

  /**
   * A new editing session. `hello` is the hello the session will send, as
   * an object in the protocol's JSON form (document, user, token, and a
   * replica, else a fresh one); `saved` the bytes of an earlier session's
   * `saved()`, to resume it.
   */
  openSession(hello, now = Date.now(), saved = undefined) {
    const text = encoder.encode(JSON.stringify({ type: 'hello', protocol: 3, replica: this.newReplica(), ...hello }));
    const handle = this.withBytes(text, (pointer, length) => saved === undefined
      ? this.exports.easel_session_open(pointer, length, now)
      : this.withBytes(saved, (savedPointer, savedLength) =>
        this.exports.easel_session_restore(pointer, length, savedPointer, savedLength, now)));
    if (handle < 0) throw new Error(`the session's hello was refused with error ${-handle}`);
    return new Session(this, handle);
  }

  /**
   * The ink outline (its bytes, InkOutline.encoded) of samples given as
   * little-endian binary32 quadruples (x, y, time, force; a negative force
   * for none), drawn with a tool, weight and end cap (their raw values).
   */
  inkOutline(samples, tool, weight, endCap) {
    const code = this.withBytes(samples, (pointer, length) =>
      this.exports.easel_ink_outline(pointer, length, tool, weight, endCap));
    if (code !== 0) throw new Error(`no tool ${tool} or end cap ${endCap}`);
    return this.result();
  }

  /** The weight slider's range for a tool and action: { min, max, start }. */
  drawingWeights(tool, action) {
    if (this.exports.easel_drawing_weights(tool, action) !== 0) throw new Error(`no tool ${tool} or action ${action}`);
    const view = new DataView(this.result().buffer);
    return { min: view.getFloat32(0, true), max: view.getFloat32(4, true), start: view.getFloat32(8, true) };
  }

  /** The renderer's SVG filters, as `<filter>` elements for a `<defs>`. */
  filters() {
    this.exports.easel_render_filters();
    return new TextDecoder().decode(this.result());
  }

  /** The bytes the last call left in the result buffer (a copy). */
  result() {
    return resultBytes(this.exports).slice();
  }

  /** The result buffer as records: { kind, bytes }. */
  records() {
    const bytes = this.result();
    const view = new DataView(bytes.buffer);
    const records = [];
    for (let offset = 0; offset < bytes.length;) {
      const kind = bytes[offset];
      const length = view.getUint32(offset + 1, true);
      records.push({ kind, bytes: bytes.subarray(offset + 5, offset + 5 + length) });
      offset += 5 + length;
    }
    return records;
  }
}

const text = new TextDecoder();
const encoder = new TextEncoder();

/** A frame the module wrote: centre x, y, width, height, rotation (binary32). */
function readFrame(view, at) {
  const [x, y, width, height, rotation] = [0, 4, 8, 12, 16].map((offset) => view.getFloat32(at + offset, true));
  return { x, y, width, height, rotation };
}

/** One page's editing session: Easel's client sync engine in the module. */
export class Session {
  constructor(easel, handle) {
    this.easel = easel;
    this.exports = easel.exports;
    this.interface = easel.interface;
    this.handle = handle;
  }

  connectionOpened(now = Date.now()) { this.exports.easel_session_connection_opened(this.handle, now); }
  connectionClosed(now = Date.now()) { this.exports.easel_session_connection_closed(this.handle, now); }
  tick(now = Date.now()) { this.exports.easel_session_tick(this.handle, now); }

  /** A binary message from the server: 0, or its decoding error code. */
  receive(bytes, now = Date.now()) {
    return this.easel.withBytes(bytes, (pointer, length) =>
      this.exports.easel_session_receive(this.handle, pointer, length, now));
  }

  /**
   * What to do: `{ send: Uint8Array }` or `{ disconnect: reason }`, in
   * order, and `{ placeFailed: blob, reason }` for an image whose upload
   * failed (its place is undone).
   */
  takeOutputs() {
    this.exports.easel_session_take_outputs(this.handle);
    return this.easel.records().map(({ kind, bytes }) => {
      if (kind === 1) return { send: bytes };
      const value = text.decode(bytes);
      if (kind === 2) return { disconnect: value };
      const space = value.indexOf(' ');
      return { placeFailed: value.slice(0, space), reason: value.slice(space + 1) };
    });
  }

  /**
   * Places an image whose bytes are uploading: `blob` is their SHA-256 (64
   * hex digits), at the screen point x, y, as large as width × height on
   * the screen now. It shows here at once; nobody else sees it until
   * `blobStored`. True when the editor took it.
   */
  placeImage(blob, x, y, width, height, now = Date.now()) {
    const code = this.easel.withBytes(encoder.encode(blob), (pointer, length) =>
      this.exports.easel_session_place_image(this.handle, pointer, length, x, y, width, height, now));
    if (code === this.interface.status.outOfRange) throw new Error(`"${blob}" is not a blob's name (64 hex digits)`);
    return code === 0;
  }

  /**
   * Makes an image whose bytes are uploading the background: its box in
   * document units, centred at the origin, filled as `fit` says (contain,
   * cover, stretch). True when the editor took it.
   */
  setBackgroundImage(blob, width, height, fit, now = Date.now()) {
    const raw = this.interface.enums.fit[fit] ?? -1;
    const code = this.easel.withBytes(encoder.encode(blob), (pointer, length) =>
      this.exports.easel_session_set_background_image(this.handle, pointer, length, width, height, raw, now));
    if (code === this.interface.status.outOfRange) throw new Error(`"${blob}" is not a blob's name, or ${fit} is not a fit`);
    return code === 0;
  }

  /** The server stored the blob: the place waiting for it goes out. */
  blobStored(blob) {
    this.easel.withBytes(encoder.encode(blob), (pointer, length) =>
      this.exports.easel_session_blob_stored(this.handle, pointer, length));
  }

  /** The upload failed for good: the place is undone, and `takeOutputs` says so. */
  blobFailed(blob, reason) {
    this.easel.withBytes(encoder.encode(blob), (pointer, length) =>
      this.easel.withBytes(encoder.encode(reason), (reasonPointer, reasonLength) =>
        this.exports.easel_session_blob_failed(this.handle, pointer, length, reasonPointer, reasonLength)));
  }

  /** The blobs whose uploads the session waits for (a resumed session's too). */
  get awaitedBlobs() {
    this.exports.easel_session_awaited_blobs(this.handle);
    const value = text.decode(this.easel.result());
    return value === '' ? [] : value.split(' ');
  }

  /**
   * What changed on the canvas: `{ draw: id, bounds, svg }` (`bounds` the
   * box its paint may reach, [min x, min y, max x, max y] in document
   * units), `{ remove: id }`, `{ place: id, above: id or null }` (put it
   * just under `above`, or on top; topmost first), or `{ order: [ids] }`
   * (bottom first, after a welcome, or in place of places when many
   * entities were placed at once), and `{ background: color or null, svg }` when the background
   * changed (`svg` its image's group, or ''), in order.
   */
  render() {
    this.exports.easel_session_render(this.handle);
    return this.easel.records().map(({ kind, bytes }) => {
      const value = text.decode(bytes);
      const space = value.indexOf(' ');
      if (kind === 5) return { background: value.slice(0, space) || null, svg: value.slice(space + 1) };
      if (kind === 1) {
        // ID, the box its paint may reach (four numbers), the element.
        const fields = value.split(' ', 5);
        const start = fields.reduce((length, field) => length + field.length + 1, 0);
        return { draw: fields[0], bounds: fields.slice(1).map(Number), svg: value.slice(start) };
      }
      if (kind === 4) return { place: value.slice(0, space), above: value.slice(space + 1) || null };
      return kind === 2 ? { remove: value } : { order: value === '' ? [] : value.split(' ') };
    });
  }

  /**
   * A gesture by name (the interface's `gestures`: tap, dragBegan, …), in
   * screen units: true when the editor took it. A name the module lacks
   * throws.
   * @param {string} name
   */
  gesture(name, x = 0, y = 0, { time = 0, force = NaN, now = Date.now() } = {}) {
    const kind = this.interface.gestures[name];
    if (kind === undefined) throw new Error(`no gesture "${name}"`);
    return this.exports.easel_session_gesture(this.handle, kind, x, y, time, force, now) === this.interface.status.done;
  }

  pointer(x, y, inside = true, now = Date.now()) {
    this.exports.easel_session_pointer(this.handle, x, y, inside ? 1 : 0, now);
  }

  /**
   * A command by name with named arguments (the interface's `commands`):
   * true when the editor took it, false when it refused it. Booleans go as
   * 1 or 0. An unknown command or argument throws.
   * @param {string} name
   * @param {Record<string, string | number | boolean>} named
   */
  perform(name, named = {}) {
    const command = this.interface.commands[name];
    if (!command) throw new Error(`no command "${name}"`);
    /** @type {Record<string, any>} */
    const slots = {};
    for (const [argument, value] of Object.entries(named)) {
      const slot = command.args[argument];
      if (!slot) throw new Error(`the command "${name}" takes no "${argument}"`);
      slots[slot] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    }
    return this.command(command.kind, slots);
  }

  /**
   * A command by kind and slots, as the bridge reads them: true when the
   * editor took it. `integer` carries a colour (0xRRGGBBAA) or an enum;
   * `a`…`d` numbers; `text` and `extra` strings. The page uses `perform`.
   */
  command(kind, { integer = 0, a = 0, b = 0, c = 0, d = 0, text: string = '', extra = '', now = Date.now() } = {}) {
    const first = encoder.encode(string);
    const second = encoder.encode(extra);
    return this.easel.withBytes(first, (textPointer, textLength) =>
      this.easel.withBytes(second, (extraPointer, extraLength) =>
        this.exports.easel_session_command(this.handle, kind, integer | 0, a, b, c, d,
          textPointer, textLength, extraPointer, extraLength, now))) === this.interface.status.done;
  }

  /** offline, connecting, connected or weak. */
  get connectionState() {
    return this.interface.enums.connectionState[this.exports.easel_session_connection_state(this.handle)];
  }

  /** The last error the server sent, { code, message }, or null. */
  get lastError() {
    const code = this.exports.easel_session_last_error(this.handle);
    return code === 0 ? null : { code, message: text.decode(this.easel.result()) };
  }

  /** The node the server last said holds the document (`moved to
   * <node>`), for the router: null lets it choose. */
  get movedTo() {
    return this.exports.easel_session_moved_to(this.handle) === 1 ? text.decode(this.easel.result()) : null;
  }

  /** How many entities around the screen are still to be drawn, over the
   * renders to come (`flags.moreToDraw`). */
  get waiting() {
    return this.exports.easel_session_waiting(this.handle);
  }

  get stateHash() {
    return BigInt.asUintN(64, this.exports.easel_session_state_hash(this.handle)).toString(16).padStart(16, '0');
  }

  /**
   * Each of the interface's flags, true or false: canUndo, canRedo,
   * canBringForward and canSendBackward (only when an entity that overlaps
   * a selected one lies that way), canBringToFront, canSendToBack,
   * hasSelection, gestureInFlight, unacknowledged, hasText, hasShape,
   * oneText (exactly one text selected), accessRefused (the server refused
   * the token: reconnecting with it cannot help).
   * @returns {Record<string, boolean>}
   */
  get flags() {
    const bits = this.exports.easel_session_flags(this.handle);
    /** @type {Record<string, boolean>} */
    const flags = {};
    for (const [name, bit] of Object.entries(this.interface.flags)) flags[name] = (bits & bit) !== 0;
    return flags;
  }

  /**
   * What gestures in flight show, this page's and its peers': `transforms`,
   * a Map of entity ID to the transform it takes meanwhile, and `strokes`, a
   * Map of a peer's replica to the SVG of the stroke it is drawing.
   */
  preview() {
    this.exports.easel_session_preview(this.handle);
    const transforms = new Map();
    const strokes = new Map();
    for (const { kind, bytes } of this.easel.records()) {
      const value = text.decode(bytes);
      const space = value.indexOf(' ');
      (kind === 1 ? transforms : strokes).set(value.slice(0, space), value.slice(space + 1));
    }
    return { transforms, strokes };
  }

  /** The canvas's size in screen units: from then on `render()` draws only
   * the entities on or near the screen. */
  setCanvasSize(width, height) {
    this.exports.easel_session_canvas_size(this.handle, width, height);
  }

  /** [panX, panY, zoom]: screen = document × zoom + pan. */
  viewport() {
    this.exports.easel_session_viewport(this.handle);
    const view = new DataView(this.easel.result().buffer);
    return [view.getFloat32(0, true), view.getFloat32(4, true), view.getFloat32(8, true)];
  }

  /** The state hash as four emoji. */
  get emojiKey() {
    this.exports.easel_session_emoji_key(this.handle);
    return text.decode(this.easel.result());
  }

  /**
   * The other people here, from their presence: { replica, color ("#rrggbbaa"),
   * cursor ({x, y} on this page's screen, or null), idle, state, name, initials,
   * selection, frame }; `state` compares their document with this page's at
   * the same log position: 'same', 'diverged', or null (not at the same
   * position); `frame` is the box around their selection where their
   * gesture in flight shows it (as `selectionFrame()`), or null; `caret` is
   * where they type: { text (its ID), anchor, head } in Unicode scalars of
   * the text as this page has it, or null.
   */
  peers() {
    this.exports.easel_session_peers(this.handle);
    return this.easel.records().map(({ bytes }) => {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let offset = 0;
      const string = () => {
        const length = view.getUint32(offset, true);
        const value = text.decode(bytes.subarray(offset + 4, offset + 4 + length));
        offset += 4 + length;
        return value;
      };
      const replica = view.getBigUint64(0, true).toString(16).padStart(16, '0');
      const color = `#${view.getUint32(8, true).toString(16).padStart(8, '0')}`;
      const x = view.getFloat32(12, true);
      const y = view.getFloat32(16, true);
      const idle = bytes[20] !== 0;
      const state = [null, 'same', 'diverged'][bytes[21]] ?? null;
      offset = 22;
      const name = string();
      const initials = string();
      const selection = string();
      const hasFrame = view.getUint32(offset, true) !== 0;
      const frame = hasFrame ? readFrame(view, offset + 4) : null;
      offset += hasFrame ? 24 : 4;
      let caret = null;
      if (view.getUint32(offset, true) !== 0) {
        offset += 4;
        const text = string();
        caret = { text, anchor: view.getUint32(offset, true), head: view.getUint32(offset + 4, true) };
      }
      return {
        replica, color, cursor: Number.isNaN(x) ? null : { x, y }, idle, state, name, initials,
        selection: selection === '' ? [] : selection.split(' '), frame, caret,
      };
    });
  }

  /**
   * The box this page's selection's handles sit on, as displayed (a gesture
   * in flight, the pan and the zoom included): { x, y, width, height,
   * rotation }, the centre and size on the screen and the rotation in
   * radians; for several entities the upright box around them. Null when
   * nothing is selected.
   */
  selectionFrame() {
    if (this.exports.easel_session_selection_frame(this.handle) === 0) return null;
    return readFrame(new DataView(this.easel.result().buffer), 0);
  }

  /**
   * Where a new item placed at the screen point `near` (the middle of the
   * view) goes: there, or stepped down and right off an item already
   * centred there (`Editor.placingSpot`). Screen units.
   * @param {{ x: number, y: number }} near
   */
  placingSpot(near) {
    if (this.exports.easel_session_placing_spot(this.handle, near.x, near.y) === 0) return near;
    const view = new DataView(this.easel.result().buffer);
    return { x: view.getFloat32(0, true), y: view.getFloat32(4, true) };
  }

  /**
   * The document, or the selection, as one SVG file drawn by the module's
   * renderer (images refer to `blobs/<hex>`), with or without its
   * background; null for a selection of nothing.
   */
  exportSVG({ selection = false, background = true } = {}) {
    if (this.exports.easel_session_export_svg(this.handle, selection ? 1 : 0, background ? 1 : 0) === 0) return null;
    return text.decode(this.easel.result());
  }

  /** The selection as the page's clipboard text (a clipping), or null. */
  copy() {
    if (this.exports.easel_session_copy(this.handle) === 0) return null;
    return text.decode(this.easel.result());
  }

  /** The text of the one selected text entity, or null. */
  get selectedText() {
    return this.selectedTextEntity()?.text ?? null;
  }

  /**
   * The one selected text entity: { text, font, size, style (0 regular, 1
   * outlined, 2 framed), alignment (0 left, 1 centre, 2 right), color
   * (0xRRGGBBAA) }, or null when the selection is not exactly one text.
   */
  selectedTextEntity() {
    if (this.exports.easel_session_selected_text(this.handle) === 0) return null;
    const bytes = this.easel.result();
    const view = new DataView(bytes.buffer);
    const fontLength = view.getUint32(10, true);
    return {
      style: bytes[0], alignment: bytes[1], size: view.getFloat32(2, true), color: view.getUint32(6, true),
      font: text.decode(bytes.subarray(14, 14 + fontLength)), text: text.decode(bytes.subarray(14 + fontLength)),
    };
  }

  /**
   * The caret moved in the one selected text: `anchor` to `head` in Unicode
   * scalars (equal for a bare caret); null takes it out. Peers see it.
   * @param {{ anchor: number, head: number } | null} caret
   */
  placeCaret(caret, now = Date.now()) {
    const { anchor, head } = caret ?? { anchor: -1, head: -1 };
    return this.exports.easel_session_place_caret(this.handle, anchor, head, now) === this.interface.status.done;
  }

  /** The caret's text as it reads now and where the caret is in it:
   * { text, anchor, head } (Unicode scalars), or null when there is none. */
  caret() {
    if (this.exports.easel_session_caret(this.handle) === 0) return null;
    const bytes = this.easel.result();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { anchor: view.getUint32(0, true), head: view.getUint32(4, true), text: text.decode(bytes.subarray(8)) };
  }

  /** This session's replica, as 16 hex digits. */
  get replica() {
    return BigInt.asUintN(64, this.exports.easel_session_replica(this.handle)).toString(16).padStart(16, '0');
  }

  get selection() {
    this.exports.easel_session_selection(this.handle);
    const value = text.decode(this.easel.result());
    return value === '' ? [] : value.split(' ');
  }

  /** The session to keep across a reload (replica, counter, unacknowledged edits). */
  saved() {
    this.exports.easel_session_saved(this.handle);
    return this.easel.result();
  }

  close() { this.exports.easel_session_close(this.handle); }
}

export class WasmDocument {
  constructor(easel, handle) {
    this.easel = easel;
    this.handle = handle;
  }

  /** Applies the ops a message carries (`ops`, `welcome`, `push`); 0 or its decoding error code. */
  receive(bytes, encoding = Encoding.binary) {
    const exports = this.easel.exports;
    return this.easel.withBytes(bytes, (pointer, length) =>
      exports.easel_document_receive(this.handle, pointer, length, encoding));
  }

  /** The state hash as 16 lowercase hex digits (Protocol/README.md, section 9). */
  get stateHash() {
    const hash = BigInt.asUintN(64, this.easel.exports.easel_document_hash(this.handle));
    return hash.toString(16).padStart(16, '0');
  }

  close() {
    this.easel.exports.easel_document_close(this.handle);
  }
}
