// The Node side of `easel bench text --module`: loads the patch file (the
// trace as `easel_text_trace_load` reads it), replays it through the module
// several times, timing only the replay as the native bench does, and
// prints {"seconds": [...], "length", "text"} of the last replay.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { instantiateEasel } from '../Page/easel.mjs';

const [patchesPath, modulePath, runs = '5'] = process.argv.slice(2);
const easel = await instantiateEasel(await readFile(modulePath));
const { exports } = easel;
const patches = await readFile(patchesPath);
const pointer = exports.easel_alloc(patches.length);
new Uint8Array(exports.memory.buffer, pointer, patches.length).set(patches);
const loaded = exports.easel_text_trace_load(pointer, patches.length);
exports.easel_free(pointer);
if (loaded < 0) throw new Error('the module did not read the patches');
const seconds = [];
let length = -1;
for (let run = 0; run < Number(runs); run += 1) {
  const start = performance.now();
  const replayed = exports.easel_text_trace_replay();
  seconds.push((performance.now() - start) / 1000);
  if (replayed < 0) throw new Error('a patch did not fit the text');
  length = exports.easel_text_trace_result();
}
const text = new TextDecoder().decode(
  new Uint8Array(exports.memory.buffer, exports.easel_result_pointer(), exports.easel_result_length()));
console.log(JSON.stringify({ seconds, length, text }));
