// Loaded async ahead of the page's other scripts: the module compiles
// while they load, not after them, and the document's socket opens
// meanwhile (connection.mjs takes it over), so the hello goes out as soon
// as the session can say it.
import { compileEasel } from './easel.mjs';

compileEasel().catch(() => {
  // canvas.mjs awaits the same promise and says what failed.
});

if (location.pathname.startsWith('/d/')) {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${scheme}://${location.host}${location.pathname}`, 'easel.v1');
  socket.binaryType = 'arraybuffer';
  socket.addEventListener('open', () => performance.mark('easel:socket-open'), { once: true });
  /** @type {any} */ (globalThis).easelEarlySocket = socket;
}
