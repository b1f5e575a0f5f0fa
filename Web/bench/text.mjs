// The Node side of `easel bench text --module`: replays the patch file (the
// trace as `easel_text_replay` reads it) through the module several times
// and prints {"seconds": [...], "length", "text"} of the last replay.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { instantiateEasel } from '../Page/easel.mjs';

const [patchesPath, modulePath, runs = '5'] = process.argv.slice(2);
const easel = await instantiateEasel(await readFile(modulePath));
const { exports } = easel;
const patches = await readFile(patchesPath);
const pointer = exports.easel_alloc(patches.length);
new Uint8Array(exports.memory.buffer, pointer, patches.length).set(patches);
const seconds = [];
let length = -1;
for (let run = 0; run < Number(runs); run += 1) {
  const start = performance.now();
  length = exports.easel_text_replay(pointer, patches.length);
  seconds.push((performance.now() - start) / 1000);
}
const text = new TextDecoder().decode(
  new Uint8Array(exports.memory.buffer, exports.easel_result_pointer(), exports.easel_result_length()));
exports.easel_free(pointer);
console.log(JSON.stringify({ seconds, length, text }));
