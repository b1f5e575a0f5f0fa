// Image bytes for the page: uploaded to the server's blob endpoint
// (Protocol/README.md, "Blobs over HTTP") and shown from the browser's
// Cache Storage, keyed by their SHA-256. The token goes in the
// Authorization header, never in a URL. Which image is where is the
// model's business; this file only moves bytes.

const CACHE = 'easel-blobs';
/** The renderer names an image's bytes `blobs/<hex>` (EaselRender). */
const RENDERED_HREF = /^blobs\/([0-9a-f]{64})$/;
/** A blob the server did not give is asked for again after this, doubling
 * up to the longest wait: the placeholder stays until it comes. */
const FIRST_RETRY_MS = 1000;
const LONGEST_RETRY_MS = 30000;
/** An upload the server could not take (busy, unreachable) is tried this
 * many times before the place is given up. */
const UPLOAD_ATTEMPTS = 5;

export class UploadError extends Error {
  constructor(status, message) {
    super(status ? `${status}: ${message}` : message);
    this.status = status;
  }

  /** Busy (503), failing (5xx) or unreachable (0): worth another try. */
  get transient() { return this.status === 0 || this.status >= 500; }
}

export class ImageStore {
  constructor({ document, token, onLoaded, isShown }) {
    this.document = document;
    this.token = token;
    /** Called with a blob's hex and object URL once its bytes can be shown. */
    this.onLoaded = onLoaded;
    /** Whether an image of the blob is still on the page: only those are
     * asked for again. */
    this.isShown = isShown;
    /** hex → object URL of bytes at hand. */
    this.urls = new Map();
    /** hex → the load in flight, so one blob is fetched once at a time. */
    this.loading = new Map();
    this.cache = globalThis.caches ? caches.open(CACHE).catch(() => null) : Promise.resolve(null);
  }

  /** The SHA-256 of the bytes as 64 hex digits. SubtleCrypto needs a secure
   * context (https, or a page from localhost or 127.0.0.1). */
  static async hash(bytes) {
    if (!globalThis.crypto?.subtle) {
      throw new Error('images need a secure page (https, or the server on localhost) to be hashed');
    }
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  }

  blobURL(hex) {
    return `/blobs/${hex}?doc=${encodeURIComponent(this.document)}`;
  }

  get headers() {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  /** Keeps bytes this page has (an image being placed) so they show
   * without a download, and survive a reload for the upload to resume. */
  async keep(hex, blob) {
    const cache = await this.cache;
    await cache?.put(cacheKey(hex), new Response(blob, { headers: { 'Content-Type': blob.type } }));
    this.shown(hex, blob);
  }

  /** Bytes kept in Cache Storage, or null. */
  async cached(hex) {
    const cache = await this.cache;
    const response = await cache?.match(cacheKey(hex));
    return response ? response.blob() : null;
  }

  /**
   * An `<image>` element from the renderer (in a parsed fragment, before it
   * joins the page): its `blobs/<hex>` reference, which would send the
   * browser to a URL that is not one, becomes `data-blob`, and it shows the
   * bytes once they are here. Until then the renderer's dashed outline
   * beneath it is the placeholder.
   */
  adopt(image) {
    const match = RENDERED_HREF.exec(image.getAttribute('href') ?? '');
    if (!match) return;
    const hex = match[1];
    image.removeAttribute('href');
    image.setAttribute('data-blob', hex);
    const url = this.urls.get(hex);
    if (url) image.setAttribute('href', url);
    else this.load(hex);
  }

  /** Fetches a blob from the cache or the server, checks it against its
   * hash, and asks again later while the server has not got it. */
  load(hex, delay = FIRST_RETRY_MS) {
    if (this.urls.has(hex) || this.loading.has(hex)) return;
    const loading = this.fetchChecked(hex)
      .then((blob) => this.shown(hex, blob))
      .catch(() => {
        setTimeout(() => {
          this.loading.delete(hex);
          if (this.isShown(hex)) this.load(hex, Math.min(delay * 2, LONGEST_RETRY_MS));
        }, delay * (0.5 + Math.random() / 2));
      });
    this.loading.set(hex, loading);
  }

  async fetchChecked(hex) {
    const cache = await this.cache;
    const kept = await cache?.match(cacheKey(hex));
    if (kept) {
      const blob = await kept.blob();
      if (await ImageStore.hash(await blob.arrayBuffer()) === hex) return blob;
      await cache.delete(cacheKey(hex)); // corrupt: fetched again below
    }
    const response = await fetch(this.blobURL(hex), { headers: this.headers });
    if (!response.ok) throw new UploadError(response.status, await response.text());
    const blob = await response.blob();
    if (await ImageStore.hash(await blob.arrayBuffer()) !== hex) throw new Error(`blob ${hex} came corrupt`);
    await cache?.put(cacheKey(hex), new Response(blob, { headers: { 'Content-Type': blob.type } }));
    return blob;
  }

  shown(hex, blob) {
    this.loading.delete(hex);
    if (this.urls.has(hex)) return;
    this.urls.set(hex, URL.createObjectURL(blob));
    this.onLoaded(hex, this.urls.get(hex));
  }

  /**
   * Uploads bytes, reporting progress (0…1); retried with jittered backoff
   * while the server is busy or unreachable. Resolves when the server has
   * them stored; rejects with an UploadError when it refuses them (400,
   * 401, 403, 413, 415) or stays unreachable.
   */
  async upload(hex, blob, progress = () => {}) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.put(hex, blob, progress);
      } catch (error) {
        if (!(error instanceof UploadError) || !error.transient || attempt === UPLOAD_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt * (0.5 + Math.random() / 2)));
      }
    }
  }

  /** One PUT. XMLHttpRequest, because fetch reports no upload progress. */
  put(hex, blob, progress) {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('PUT', this.blobURL(hex));
      for (const [name, value] of Object.entries(this.headers)) request.setRequestHeader(name, value);
      request.upload.onprogress = (event) => { if (event.lengthComputable) progress(event.loaded / event.total); };
      request.onload = () => {
        if (request.status === 200 || request.status === 201) resolve(request.status);
        else reject(new UploadError(request.status, request.responseText.trim() || request.statusText));
      };
      request.onerror = () => reject(new UploadError(0, 'the server could not be reached'));
      request.send(blob);
    });
  }
}

function cacheKey(hex) {
  return new Request(`/blobs/${hex}`);
}
