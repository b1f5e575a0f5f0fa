// A live stroke in the module, driven as the page drives it: each sample a
// drawMoved gesture, then render() and takeOutputs(), timed per sample in
// windows along one long stroke (a slow wandering curve at 120 Hz), so a
// cost that grows with the stroke's length shows. Prints JSON:
// {"windows": [{"from", "to", "microseconds"}], "samples"}.
// Usage: node Web/bench/live-stroke.mjs MODULE [SAMPLES] [RUNS]
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { instantiateEasel } from '../Page/easel.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [modulePath = path.join(root, '.build-wasm/easel.wasm'), samplesText = '3200', runsText = '3'] =
  process.argv.slice(2);
const sampleCount = Number(samplesText);
const runs = Number(runsText);
const easel = await instantiateEasel(await readFile(modulePath));
const welcomeTail = Uint8Array.from(Buffer.from(
  (await readFile(path.join(root, 'Protocol/vectors/valid/welcome-tail.hex'), 'utf8')).replace(/\s+/g, ''), 'hex'));
const windowSize = 200;
const windowStarts = [0, 1000, 3000].filter((start) => start + windowSize <= sampleCount);

/** Per-sample microseconds in each window, for one stroke. */
function oneStroke() {
  const session = easel.openSession({ document: 'bench/live', user: { name: 'Bo', initials: 'B', color: '#336699ff' } }, 1000);
  session.connectionOpened(1000);
  session.takeOutputs();
  if (session.receive(welcomeTail, 1001) !== 0) throw new Error('the welcome was refused');
  session.render();
  let x = 0, y = 0, heading = 0;
  session.gesture('drawBegan', 400, 400, { time: 0, force: 0.5, now: 1002 });
  session.render();
  const spent = new Array(sampleCount).fill(0);
  for (let index = 0; index < sampleCount; index += 1) {
    // About 300 units a second, turning slowly one way then the other.
    heading += Math.sin(index / 90) * 0.05;
    x += 2.5 * Math.cos(heading);
    y += 2.5 * Math.sin(heading);
    const time = (index + 1) / 120;
    const start = performance.now();
    session.gesture('drawMoved', 400 + x, 400 + y, { time, force: 0.5, now: 1002 + time * 1000 });
    session.render();
    session.takeOutputs();
    spent[index] = performance.now() - start;
  }
  session.gesture('drawEnded');
  session.close();
  return windowStarts.map((from) => spent.slice(from, from + windowSize).reduce((a, b) => a + b, 0) / windowSize * 1000);
}

const results = Array.from({ length: runs }, oneStroke);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(JSON.stringify({
  samples: sampleCount,
  windows: windowStarts.map((from, index) => ({
    from, to: from + windowSize, microseconds: median(results.map((run) => run[index])),
  })),
}));
