// The wasm side of `easel bench wasm`: applies a merge workload's `ops`
// messages through the WebAssembly module, one crossing per message (never
// per op), and prints {"seconds", "hash"} as JSON. The workload file is what
// `easel bench wasm` writes: a base message, then the messages to time, each
// as a little-endian 32-bit length and its bytes.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { instantiateEasel } from '../Shell/easel.mjs';

const [workloadPath, modulePath] = process.argv.slice(2);
const easel = await instantiateEasel(await readFile(modulePath));
const file = await readFile(workloadPath);
const messages = [];
for (let offset = 0; offset < file.length;) {
  const length = file.readUInt32LE(offset);
  messages.push(new Uint8Array(file.buffer, file.byteOffset + offset + 4, length));
  offset += 4 + length;
}
const [base, ...timed] = messages;
const document = easel.openDocument();
if (document.receive(base) !== 0) throw new Error('the base message did not apply');
const start = performance.now();
for (const message of timed) {
  if (document.receive(message) !== 0) throw new Error('a message did not apply');
}
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ seconds, hash: document.stateHash }));
