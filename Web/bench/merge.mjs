// The Node side of `easel bench wasm`: times the workload file's messages
// through the module (merge-core.mjs) and prints {"seconds", "hash"}.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { instantiateEasel } from '../Page/easel.mjs';
import { timeMerge } from './merge-core.mjs';

const [workloadPath, modulePath] = process.argv.slice(2);
const easel = await instantiateEasel(await readFile(modulePath));
const file = await readFile(workloadPath);
const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
console.log(JSON.stringify(timeMerge(easel, bytes, () => performance.now())));
