// Images placed from files: the size they take on the screen, and what the
// upload status says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLACED_LONGEST, placedSize, uploadStatus } from '../Page/uploads.mjs';

test('an image is placed at its own size when it fits, never grown', () => {
  assert.deepEqual(placedSize({ width: 200, height: 100 }, { width: 1280, height: 800 }), { width: 200, height: 100 });
  assert.deepEqual(placedSize({ width: 20, height: 10 }, { width: 100, height: 100 }), { width: 20, height: 10 });
});

test('a large image is shrunk, keeping its ratio, to 480 px on its longer side or 60 % of the canvas', () => {
  const photo = placedSize({ width: 4000, height: 3000 }, { width: 1280, height: 800 });
  assert.equal(photo.width, PLACED_LONGEST);
  assert.equal(photo.height, 360);
  const onPhone = placedSize({ width: 4000, height: 3000 }, { width: 390, height: 844 });
  assert.ok(Math.abs(onPhone.width - 390 * 0.6) < 1e-9, 'as wide as 60 % of a phone');
  assert.ok(Math.abs(onPhone.width / onPhone.height - 4 / 3) < 1e-9);
});

test('the upload status names each upload in flight with its share done, and is empty without one', () => {
  assert.equal(uploadStatus(new Map()), '');
  const uploads = new Map([['a', { name: 'cat.png', fraction: 0.25 }], ['b', { name: 'dog.jpg', fraction: 1 }]]);
  assert.equal(uploadStatus(uploads), 'Uploading cat.png 25% · Uploading dog.jpg 100%');
});
