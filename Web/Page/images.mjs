// Image bytes for the page: uploaded to the server's blob endpoint
// (Protocol/README.md, "Blobs over HTTP") and shown from the browser's
// Cache Storage, keyed by their SHA-256. The token goes in the
// Authorization header, never in a URL. Which image is where is the
// model's business, and so are what an answer's status means and how long
// to wait before trying again (the module's, as the Swift clients'); this
// file only moves bytes.

const CACHE = 'easel-blobs';
/** The renderer names an image's bytes `blobs/<hex>` (EaselRender). */
const RENDERED_HREF = /^blobs\/([0-9a-f]{64})$/;
/** A transfer that failed: the status (0: no answer) and what the module
 * makes of it (`Easel.blobFailure`): `transient` when another try may help. */
export class TransferError extends Error {
  constructor(status, message, { failure = 'unavailable', transient = true } = {}) {
    super(status ? `${status}: ${message}` : message);
    this.status = status;
    this.failure = failure;
    this.transient = transient;
  }
}

/** Whether an error is a transfer failure another try may mend. */
export const isTransient = (error) => error instanceof TransferError && error.transient;

/**
 * Runs `attempt` until it succeeds, fails for good (an error `retries`
 * does not take: by default any but a transient TransferError), or
 * `delay(failures)` says the tries are spent (null); waits `delay(failures)`
 * ms between tries.
 * @template T
 * @param {() => Promise<T>} attempt
 * @param {(failures: number) => number | null} delay
 * @param {{ retries?: (error: any) => boolean, sleep?: (ms: number) => Promise<void> }} options
 * @returns {Promise<T>}
 */
export async function retrying(attempt, delay,
  { retries = isTransient, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) } = {}) {
  for (let failures = 1; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      const wait = retries(error) ? delay(failures) : null;
      if (wait === null) throw error;
      await sleep(wait);
    }
  }
}

export class ImageStore {
  /** `easel` (the module) says what a status means and how long to wait. */
  constructor({ easel, document, token, onLoaded, isShown }) {
    this.easel = easel;
    this.document = document;
    this.token = token;
    /** Called with a blob's hex and object URL once its bytes can be shown. */
    this.onLoaded = onLoaded;
    /** Whether an image of the blob is still on the page: only those are
     * fetched, and tried again. */
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

  /**
   * Fetches a blob from the cache or the server and checks it against its
   * hash; whatever fails (a 404 too: an upload may land late), asks again
   * as the module's policy for shown images says (`blobShown`), for as
   * long as an image of the blob is on the page. The renderer's
   * placeholder shows meanwhile.
   */
  load(hex) {
    if (this.urls.has(hex) || this.loading.has(hex)) return;
    // The first try comes as the image is adopted, before it joins the page.
    let tries = 0;
    const attempt = () => (tries++ === 0 || this.isShown(hex)
      ? this.fetchChecked(hex) : Promise.reject(new Error('no longer shown')));
    const loading = retrying(attempt, (failures) => this.easel.retryDelay('blobShown', failures),
      { retries: (error) => error instanceof TransferError })
      .then((blob) => this.shown(hex, blob))
      .catch(() => { this.loading.delete(hex); });
    this.loading.set(hex, loading);
  }

  /** A TransferError for an answer's status, as the module reads it. */
  failure(status, message) {
    return new TransferError(status, message, this.easel.blobFailure(status) ?? undefined);
  }

  async fetchChecked(hex) {
    const cache = await this.cache;
    const kept = await cache?.match(cacheKey(hex));
    if (kept) {
      const blob = await kept.blob();
      if (await ImageStore.hash(await blob.arrayBuffer()) === hex) return blob;
      await cache.delete(cacheKey(hex)); // corrupt: fetched again below
    }
    const response = await fetch(this.blobURL(hex), { headers: this.headers })
      .catch(() => { throw this.failure(0, 'the server could not be reached'); });
    if (!response.ok) throw this.failure(response.status, await response.text());
    const blob = await response.blob();
    if (await ImageStore.hash(await blob.arrayBuffer()) !== hex) {
      throw new TransferError(0, `blob ${hex} came corrupt`, { failure: 'corrupt', transient: true });
    }
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
   * Uploads bytes, reporting progress (0…1); tried again as the module's
   * blob policy says while the server is busy or unreachable. Resolves when
   * the server has them stored; rejects with a TransferError when it
   * refuses them (400, 401, 403, 413, 415) or stays unreachable.
   */
  upload(hex, blob, progress = () => {}) {
    return retrying(() => this.put(hex, blob, progress), (failures) => this.easel.retryDelay('blobTransfer', failures));
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
        else reject(this.failure(request.status, request.responseText.trim() || request.statusText));
      };
      request.onerror = () => reject(this.failure(0, 'the server could not be reached'));
      request.send(blob);
    });
  }
}

function cacheKey(hex) {
  return new Request(`/blobs/${hex}`);
}
