// Export: a standalone file — images and fonts inside it — named after the
// document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blobsIn, dataURL, embedImages, fileName, fontsUsed, svgSize, withFonts } from '../Page/export.mjs';
import { FONTS } from '../Page/tools.mjs';

const HEX = 'ab'.repeat(32);
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" width="200" height="100">
<g><image href="blobs/${HEX}" width="10" height="10"/></g><g><image href="blobs/${HEX}"/></g>
<g><text font-family="DejaVu Serif" font-size="20">hi</text></g></svg>`;

test('each image\'s bytes go inside the file; an image without bytes keeps its reference', () => {
  assert.deepEqual(blobsIn(SVG), [HEX]);
  const embedded = embedImages(SVG, new Map([[HEX, 'data:image/png;base64,AAAA']]));
  assert.equal(blobsIn(embedded).length, 0);
  assert.equal(embedded.split('data:image/png;base64,AAAA').length, 3);
  assert.equal(embedImages(SVG, new Map()), SVG);
});

test('the fonts the texts use go inside the file as @font-face rules, and no others', () => {
  assert.deepEqual(fontsUsed(SVG, FONTS).map((font) => font.family), ['DejaVu Serif']);
  const styled = withFonts(SVG, [{ family: 'DejaVu Serif', url: 'data:font/ttf;base64,AAAA' }]);
  assert.match(styled, /^<svg [^>]*>\n<style>@font-face\{font-family:"DejaVu Serif";src:url\(data:font\/ttf;base64,AAAA\)/);
  assert.equal(withFonts(SVG, []), SVG);
});

test('the picture\'s size comes from the file, and the file\'s name from the document', () => {
  assert.deepEqual(svgSize(SVG), { width: 200, height: 100 });
  assert.throws(() => svgSize('<svg/>'), /no size/);
  assert.equal(fileName('team/board 1'), 'team-board-1.png');
  assert.equal(fileName('board', { selection: true, scale: 2 }), 'board-selection@2x.png');
  assert.equal(fileName('board', { format: 'svg', scale: 2 }), 'board.svg');
  assert.equal(fileName('///'), 'easel.png');
});

test('bytes become a data URL, however many', async () => {
  const bytes = new Uint8Array(100_000).map((_, index) => index % 251);
  const url = await dataURL(new Blob([bytes], { type: 'image/png' }));
  assert.ok(url.startsWith('data:image/png;base64,'));
  assert.deepEqual(new Uint8Array(Buffer.from(url.split(',')[1], 'base64')), bytes);
});
