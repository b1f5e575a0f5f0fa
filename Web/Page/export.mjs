// Export: the canvas or the selection as PNG (1× or 2×, with or without its
// background) or SVG, drawn by the module's renderer, so the picture is the
// one every client and `easel render` draw. The file stands alone: images
// and the fonts the texts use go inside it as data URLs.

/** `blobs/<hex>` references the renderer writes for images. */
const BLOB_HREF = /href="blobs\/([0-9a-f]{64})"/g;

/** The blobs an SVG's images refer to. */
export function blobsIn(svg) {
  return [...new Set([...svg.matchAll(BLOB_HREF)].map((match) => match[1]))];
}

/** The SVG with each image's reference replaced by its data URL (`urls`: hex → data URL). */
export function embedImages(svg, urls) {
  return svg.replace(BLOB_HREF, (whole, hex) => (urls.has(hex) ? `href="${urls.get(hex)}"` : whole));
}

/** The fonts of `fonts` ({ family, file }) that the SVG's texts use. */
export function fontsUsed(svg, fonts) {
  return fonts.filter((font) => svg.includes(`font-family="${font.family}"`));
}

/** The SVG with `@font-face` rules for the given fonts ({ family, url }) inside it. */
export function withFonts(svg, faces) {
  if (faces.length === 0) return svg;
  const rules = faces.map(({ family, url }) => `@font-face{font-family:"${family}";src:url(${url}) format("truetype")}`);
  return svg.replace(/(<svg\b[^>]*>)/, `$1\n<style>${rules.join('')}</style>`);
}

/** The width and height an SVG file gives itself, in CSS pixels. */
export function svgSize(svg) {
  const width = /<svg\b[^>]*\bwidth="([\d.]+)"/.exec(svg);
  const height = /<svg\b[^>]*\bheight="([\d.]+)"/.exec(svg);
  if (!width || !height) throw new Error('the SVG gives no size');
  return { width: Number(width[1]), height: Number(height[1]) };
}

/** A file name for the export: the document's name, made safe, and what it holds. */
export function fileName(document, { selection = false, scale = 1, format = 'png' } = {}) {
  const base = document.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'easel';
  const part = selection ? '-selection' : '';
  const size = format === 'png' && scale !== 1 ? `@${scale}x` : '';
  return `${base}${part}${size}.${format}`;
}

/** Bytes as a data URL. */
export async function dataURL(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return `data:${blob.type || 'application/octet-stream'};base64,${btoa(binary)}`;
}

/**
 * The export as a Blob: `format` 'png' or 'svg'; `scale` 1 or 2 for PNG;
 * `selection` for the selected entities alone; `background` with the
 * document's background. `blob(hex)` gives an image's bytes; `font(file)`
 * a font's. Null when the selection is empty.
 */
export async function exportImage(session, { format = 'png', scale = 1, selection = false, background = true },
  { blob, font, fonts }) {
  let svg = session.exportSVG({ selection, background });
  if (svg === null) return null;
  const urls = new Map();
  for (const hex of blobsIn(svg)) {
    const bytes = await blob(hex).catch(() => null);
    if (bytes) urls.set(hex, await dataURL(bytes));
  }
  svg = embedImages(svg, urls);
  const faces = [];
  for (const { family, file } of fontsUsed(svg, fonts)) {
    faces.push({ family, url: await dataURL(new Blob([await font(file)], { type: 'font/ttf' })) });
  }
  svg = withFonts(svg, faces);
  if (format === 'svg') return new Blob([svg], { type: 'image/svg+xml' });
  const { width, height } = svgSize(svg);
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise((resolve, reject) =>
      canvas.toBlob((png) => (png ? resolve(png) : reject(new Error('the browser made no PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Hands a Blob to the browser as a download. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Wires the export dialog (`#export-dialog`): what (the canvas or the
 * selection), as what (PNG 1×, 2× or SVG), with or without the background;
 * its Export button downloads the file. `blob(hex)` gives an image's bytes;
 * fonts are fetched from the page's own folder. Returns `{ exportNow,
 * showExport, dialog }`: `exportNow(choice)` makes the Blob without a
 * download (tests use it).
 */
export function attachExportDialog({ session, document: name, blob, fonts, beforeOpen = () => {} }) {
  /** @type {(id: string) => any} */
  const $ = (id) => document.getElementById(id);
  const dialog = $('export-dialog');
  const font = (file) => fetch(`/static/${file}`).then((response) => response.arrayBuffer());
  const exportNow = (choice) => exportImage(session, choice, { blob, font, fonts });
  function showExport() {
    beforeOpen();
    const selected = session.flags.hasSelection;
    $('export-selection').disabled = !selected;
    for (const radio of dialog.querySelectorAll('[name=export-what]')) {
      radio.checked = radio.value === (selected ? 'selection' : 'canvas');
    }
    $('export-status').textContent = '';
    if (!dialog.open) dialog.showModal();
  }
  $('export-form').addEventListener('submit', async (event) => {
    if (event.submitter?.value !== 'export') return;
    event.preventDefault();
    const form = new FormData($('export-form'));
    const [format, scale] = String(form.get('export-format')).split('-');
    const choice = {
      format, scale: Number(scale ?? 1), selection: form.get('export-what') === 'selection',
      background: $('export-background').checked,
    };
    $('export-status').textContent = 'Drawing…';
    try {
      const made = await exportNow(choice);
      if (!made) throw new Error('nothing is selected');
      download(made, fileName(name, choice));
      dialog.close();
    } catch (error) {
      $('export-status').textContent = `Not exported: ${error.message}`;
    }
  });
  return { exportNow, showExport, dialog };
}
