// Images into the document: picked, dropped or pasted, and the background
// image. The bytes are kept in the browser and uploaded (images.mjs); the
// image shows at once here, and the session holds its place back from
// everyone else until the server has stored them (blob before op).

/** An image placed from a file takes at most this share of the canvas… */
export const PLACED_SHARE = 0.6;
/** …and at most this many screen pixels on its longer side. */
export const PLACED_LONGEST = 480;
/** A background image's longer side, in document units, at most. */
export const BACKGROUND_LONGEST = 2000;

/**
 * The size an image of `width` × `height` pixels is placed at on a canvas
 * of `canvas` screen pixels: its own size, shrunk (never grown) to fit.
 * @param {{ width: number, height: number }} image
 * @param {{ width: number, height: number }} canvas
 */
export function placedSize(image, canvas) {
  const fit = Math.min(1, PLACED_LONGEST / Math.max(image.width, image.height),
    (canvas.width * PLACED_SHARE) / image.width, (canvas.height * PLACED_SHARE) / image.height);
  return { width: image.width * fit, height: image.height * fit };
}

/** What the upload status says for the uploads in flight (name → fraction done), or '' for none. */
export function uploadStatus(uploads) {
  return [...uploads.values()]
    .map(({ name, fraction }) => `Uploading ${name} ${Math.round(fraction * 100)}%`).join(' · ');
}

/**
 * Wires the image inputs, dropping on the canvas and the background's
 * controls. `spot()` is where a new image goes (screen point); `canvas`
 * the canvas element; `ImageStore` the class whose `hash` names bytes.
 * Returns `{ placeImage(file, at?) }` for the clipboard.
 */
export function attachUploads({ session, images, ImageStore, canvas, spot, changed, fail, afterPick = () => {} }) {
  const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
  /** @type {Map<string, { name: string, fraction: number }>} */
  const uploads = new Map();
  function showUploads() {
    $('upload').hidden = uploads.size === 0;
    $('upload').textContent = uploadStatus(uploads);
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
  /** Keeps the bytes and names them; the bitmap says the size. */
  async function prepared(file) {
    const bitmap = await readable(file);
    const hex = await ImageStore.hash(await file.arrayBuffer());
    await images.keep(hex, file);
    return { bitmap, hex };
  }
  async function placeImage(file, at = spot()) {
    try {
      const { bitmap, hex } = await prepared(file);
      const box = canvas.getBoundingClientRect();
      const { width, height } = placedSize(bitmap, box);
      if (!session.placeImage(hex, at.x, at.y, width, height)) throw new Error('the editor refused the image');
      changed();
      await upload(hex, file, file.name || 'image');
    } catch (error) {
      fail(`The image was not placed: ${error.message}`);
    }
  }
  // Its pixels at one document unit each, centred at the document's origin.
  async function setBackgroundImage(file) {
    try {
      const { bitmap, hex } = await prepared(file);
      const fit = Math.min(1, BACKGROUND_LONGEST / Math.max(bitmap.width, bitmap.height));
      if (!session.setBackgroundImage(hex, bitmap.width * fit, bitmap.height * fit, $('background-fit').value)) {
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
  for (const id of ['image-file', 'image-file-picked']) {
    $(id).addEventListener('change', () => {
      for (const file of $(id).files) placeImage(file);
      $(id).value = '';
      afterPick();
    });
  }
  canvas.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
  });
  canvas.addEventListener('drop', (event) => {
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    const box = canvas.getBoundingClientRect();
    for (const file of files) placeImage(file, { x: event.clientX - box.left, y: event.clientY - box.top });
  });
  // A page reloaded mid-upload resumes it from the bytes the browser kept.
  for (const hex of session.awaitedBlobs) {
    images.cached(hex).then((blob) => blob
      ? upload(hex, blob, 'image')
      : session.blobFailed(hex, 'its bytes were not kept by this browser'));
  }
  return { placeImage };
}
