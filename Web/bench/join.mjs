// Joining a document in the module, as the page joins it: a session opens,
// connects to a running `easel serve`, takes the welcome in message by
// message and renders once, and says where the time and the module's
// memory went. Prints JSON: {"messages", "message bytes", "connect ms",
// "first message ms", "receiving ms", "slowest message ms", "render ms",
// "state hash ms", "memory MB": {"before", "welcomed", "rendered"}}.
// Usage: node --experimental-websocket Web/bench/join.mjs MODULE ws://127.0.0.1:PORT/d/DOC [WIDTH HEIGHT]
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { instantiateEasel } from '../Page/easel.mjs';

const [modulePath, url, widthText = '1400', heightText = '860'] = process.argv.slice(2);
if (!modulePath || !url) {
  console.error('usage: node --experimental-websocket Web/bench/join.mjs MODULE ws://HOST:PORT/d/DOC [WIDTH HEIGHT]');
  process.exit(2);
}
const easel = await instantiateEasel(await readFile(modulePath));
const memoryMB = () => easel.exports.memory.buffer.byteLength / 2 ** 20;
const before = memoryMB();
const document = decodeURIComponent(new URL(url).pathname.slice('/d/'.length));
const session = easel.openSession({ document, user: { name: 'Bench', initials: 'B', color: '#336699ff' } }, Date.now());
session.setCanvasSize(Number(widthText), Number(heightText));
session.render();

const started = performance.now();
const socket = new WebSocket(url, 'easel.v1');
socket.binaryType = 'arraybuffer';
let opened = 0, firstMessage = 0, receiving = 0, slowest = 0, messages = 0, bytes = 0;
const steps = [];
const send = () => {
  for (const output of session.takeOutputs()) if (output.send) socket.send(output.send);
};
const finished = new Promise((resolve, reject) => {
  socket.onerror = () => reject(new Error(`could not connect to ${url}`));
  socket.onopen = () => {
    opened = performance.now() - started;
    session.connectionOpened(Date.now());
    send();
  };
  socket.onmessage = (event) => {
    if (!(event.data instanceof ArrayBuffer)) return;
    if (!messages) firstMessage = performance.now() - started;
    messages += 1;
    bytes += event.data.byteLength;
    const start = performance.now();
    const status = session.receive(new Uint8Array(event.data), Date.now());
    const spent = performance.now() - start;
    receiving += spent;
    slowest = Math.max(slowest, spent);
    steps.push({ bytes: event.data.byteLength, ms: Math.round(spent), 'memory MB': memoryMB() });
    if (process.env.EASEL_JOIN_STEPS && steps.length > 1 && memoryMB() > steps[steps.length - 2]['memory MB']) console.error('grew at message', steps.length, 'first bytes', [...new Uint8Array(event.data).slice(0, 4)], memoryMB());
    if (status !== 0) reject(new Error(`a message was refused: status ${status}`));
    send();
    if (session.connectionState === 'connected') resolve();
  };
});
await finished;
const welcomed = memoryMB();
const renderStart = performance.now();
session.render();
const render = performance.now() - renderStart;
// EASEL_JOIN_LINGER=SECONDS: stay, ticking and rendering as the page does
// every 50 ms (and reading the state key every half second), printing
// the module's memory each second.
const linger = Number(process.env.EASEL_JOIN_LINGER ?? 0);
for (let tick = 1; tick <= linger * 20; tick += 1) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  session.tick(Date.now());
  send();
  session.render();
  if (tick % 10 === 0) void session.emojiKey;
  if (tick % 20 === 0) console.error(`${tick / 20} s: module ${memoryMB()} MB`);
}
// The state key hashes the whole document, as the page does now and then.
const hashStart = performance.now();
void session.emojiKey;
const hash = performance.now() - hashStart;
socket.close();
const round = (value) => Math.round(value * 10) / 10;
console.log(JSON.stringify({
  messages, 'message bytes': bytes, 'connect ms': round(opened), 'first message ms': round(firstMessage),
  'receiving ms': round(receiving), 'slowest message ms': round(slowest), 'render ms': round(render),
  'state hash ms': round(hash),
  'memory MB': { before: round(before), welcomed: round(welcomed), rendered: round(memoryMB()) },
  ...(process.env.EASEL_JOIN_STEPS ? { steps } : {}),
}));
