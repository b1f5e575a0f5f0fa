// The Node side of `easel bench ink`: outlines every stroke of the file
// through the module and prints {"seconds", "pieces"}.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { instantiateEasel } from '../Page/easel.mjs';

const [strokesPath, modulePath] = process.argv.slice(2);
const easel = await instantiateEasel(await readFile(modulePath));
const file = await readFile(strokesPath);
const strokes = [];
for (let offset = 0; offset < file.length;) {
  const tool = file[offset];
  const count = file.readUInt32LE(offset + 1);
  strokes.push({ tool, samples: new Uint8Array(file.buffer, file.byteOffset + offset + 5, count * 16) });
  offset += 5 + count * 16;
}
const start = performance.now();
let bytes = 0;
for (const stroke of strokes) bytes += easel.inkOutline(stroke.samples, stroke.tool, 4, 0).length;
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ seconds, bytes }));
