// Easel's WebAssembly module behind a small JavaScript face: the same code
// for the page and for Node. Everything crosses as numbers and byte
// buffers; no model, protocol or rendering rule lives here (Docs/web.md).

const ENOSYS = 52;

/** Instantiates the module from its bytes. */
export async function instantiateEasel(bytes) {
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
  const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasi });
  memory = instance.exports.memory;
  return new Easel(instance.exports);
}

export const Encoding = Object.freeze({ binary: 0, json: 1 });

export class Easel {
  constructor(exports) {
    this.exports = exports;
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
