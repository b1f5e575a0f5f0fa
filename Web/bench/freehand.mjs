// Easel's ink against perfect-freehand (what tldraw draws with), on the
// same scripted motions: time per sample (whole strokes, and redrawn at
// every new sample as a live stroke is), outlines that cross themselves,
// and how far one motion's ink moves when sampled at 60, 120 or 240 Hz.
//
//   node Web/bench/freehand.mjs PERFECT_FREEHAND_MODULE [EASEL_WASM]
//
// PERFECT_FREEHAND_MODULE is an ES module exporting getStroke: there is no
// npm here, so Docs/drawing.md says how the one measured was made from the
// project's sources. Prints one JSON object.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { instantiateEasel } from '../Page/easel.mjs';

const [freehandPath, wasmPath = '.build-wasm/easel.wasm'] = process.argv.slice(2);
const { getStroke } = await import(new URL(freehandPath, `file://${process.cwd()}/`).href);
const easel = await instantiateEasel(await readFile(wasmPath));
const WIDTH = 8;
const freehandOptions = { size: WIDTH, thinning: 0.5, smoothing: 0.5, streamline: 0.5, simulatePressure: true };

// Motions: a path as many points, and how a hand moves along it.
const curve = (steps, f) => Array.from({ length: steps + 1 }, (_, i) => f(i / steps));
const motions = [
  { name: 'S-curve', points: curve(600, (t) => [300 * t, 60 * Math.sin(2 * Math.PI * t)]), speed: 150 },
  { name: 'flick', points: curve(50, (t) => [400 * t, 40 * t * t]), speed: 2500 },
  { name: 'zigzag', points: Array.from({ length: 9 }, (_, i) => [i * 30, i % 2 ? 60 : 0]), speed: 900, stops: true },
  { name: 'cursive loops', points: curve(1200, (t) => [260 * t - 22 * Math.sin(10 * Math.PI * t), 22 * Math.cos(10 * Math.PI * t)]), speed: 400, natural: true },
  { name: 'sharp V', points: [[0, 0], [120, 0], [30, 90]], speed: 300, stops: true },
  { name: 'square', points: [[0, 0], [100, 0], [100, 100], [0, 100], [0, 0]], speed: 350, stops: true },
  { name: 'spiral', points: curve(1500, (t) => [(80 - 72 * t) * Math.cos(8 * Math.PI * t), (80 - 72 * t) * Math.sin(8 * Math.PI * t)]), speed: 500, natural: true },
  { name: 'circle', points: curve(600, (t) => [70 * Math.cos(2 * Math.PI * t), 70 * Math.sin(2 * Math.PI * t)]), speed: 600 },
  { name: 'hairpin', points: [[0, 0], [150, 0], [0, 6]], speed: 1200, stops: true },
];

/** Samples [x, y, t] of a motion at a rate: steady along the path, slowing
 * by the two-thirds power law on curves (`natural`), or stopping at each
 * point with a minimum-jerk reach (`stops`). */
function sample(motion, rate) {
  const p = motion.points;
  const times = [0];
  for (let i = 1; i < p.length; i++) {
    const length = Math.hypot(p[i][0] - p[i - 1][0], p[i][1] - p[i - 1][1]);
    let speed = motion.speed;
    if (motion.natural && i > 1 && i + 1 < p.length) {
      const [a, b, c] = [p[i - 1], p[i], p[i + 1]];
      const cross = Math.abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
      const radius = cross > 0 ? Math.hypot(b[0] - a[0], b[1] - a[1]) * Math.hypot(c[0] - b[0], c[1] - b[1])
        * Math.hypot(a[0] - c[0], a[1] - c[1]) / (2 * cross) : 1e9;
      speed *= Math.min(Math.max(Math.cbrt(radius / 50), 0.2), 2);
    }
    times.push(times[i - 1] + length / speed);
  }
  const samples = [];
  let leg = 0;
  for (let tick = 0; tick / rate < times[times.length - 1]; tick++) {
    const time = tick / rate;
    while (times[leg + 1] <= time) leg++;
    let f = (time - times[leg]) / (times[leg + 1] - times[leg]);
    if (motion.stops) f = f * f * f * (10 - f * (15 - 6 * f));
    samples.push([p[leg][0] + (p[leg + 1][0] - p[leg][0]) * f, p[leg][1] + (p[leg + 1][1] - p[leg][1]) * f, time]);
  }
  const last = p[p.length - 1];
  samples.push([last[0], last[1], times[times.length - 1]]);
  return samples;
}

/** Samples as the module takes them: binary32 x, y, time, no force. */
function easelSamples(samples) {
  const values = new Float32Array(samples.length * 4);
  samples.forEach(([x, y, t], i) => values.set([x - samples[0][0], y - samples[0][1], t, -1], i * 4));
  return new Uint8Array(values.buffer);
}

/** An Easel outline's pieces as polygons, its half circles as 16 edges. */
function easelPolygons(bytes, origin) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  const f = () => { const v = view.getFloat32(offset, true); offset += 4; return v; };
  const pt = () => [f() + origin[0], f() + origin[1]];
  const half = (from, centre) => {
    const r = Math.hypot(from[0] - centre[0], from[1] - centre[1]);
    const start = Math.atan2(from[1] - centre[1], from[0] - centre[0]);
    return Array.from({ length: 15 }, (_, k) => [centre[0] + r * Math.cos(start - Math.PI * (k + 1) / 16),
      centre[1] + r * Math.sin(start - Math.PI * (k + 1) / 16)]);
  };
  const polygons = [];
  while (offset < bytes.length) {
    const kind = view.getUint8(offset++);
    if (kind === 1) {
      const c = pt(); const r = f();
      polygons.push(Array.from({ length: 32 }, (_, k) => [c[0] + r * Math.cos(-Math.PI * k / 16), c[1] + r * Math.sin(-Math.PI * k / 16)]));
    } else if (kind === 2) {
      const count = view.getUint32(offset, true); offset += 4;
      const left = Array.from({ length: count }, pt);
      const right = Array.from({ length: count }, pt);
      const start = pt(); f(); const end = pt(); f();
      polygons.push([...left, ...half(left[count - 1], end), ...[...right].reverse(), ...half(right[0], start)]);
    } else {
      polygons.push([pt(), pt(), pt()]);
    }
  }
  return polygons;
}

/** Whether two edges of a polygon that share no corner cross, each end of
 * one more than a thousandth of a unit from the other's line. */
function crossesItself(polygon) {
  const n = polygon.length;
  const side = (a, b, c) => ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    / (Math.hypot(b[0] - a[0], b[1] - a[1]) || 1) * 1e-6;
  for (let i = 0; i < n; i++) {
    const a = polygon[i], b = polygon[(i + 1) % n];
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      const c = polygon[j], d = polygon[(j + 1) % n];
      const d1 = side(c, d, a), d2 = side(c, d, b), d3 = side(a, b, c), d4 = side(a, b, d);
      if (((d1 > 1e-9 && d2 < -1e-9) || (d1 < -1e-9 && d2 > 1e-9)) && ((d3 > 1e-9 && d4 < -1e-9) || (d3 < -1e-9 && d4 > 1e-9))) return true;
    }
  }
  return false;
}

/** The polygons filled by the nonzero rule on a grid of `cell` units: the
 * set of filled cells, as "row,column" keys. */
function raster(polygons, cell = 0.25) {
  const filled = new Set();
  let minY = Infinity, maxY = -Infinity;
  for (const polygon of polygons) for (const [, y] of polygon) { minY = Math.min(minY, y); maxY = Math.max(maxY, y); }
  for (let row = Math.floor(minY / cell); row <= Math.ceil(maxY / cell); row++) {
    const y = (row + 0.5) * cell;
    const crossings = [];
    for (const polygon of polygons) {
      for (let i = 0; i < polygon.length; i++) {
        const a = polygon[i], b = polygon[(i + 1) % polygon.length];
        if ((a[1] <= y) !== (b[1] <= y)) crossings.push([a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0]), b[1] > a[1] ? 1 : -1]);
      }
    }
    crossings.sort((p, q) => p[0] - q[0]);
    let winding = 0;
    for (let k = 0; k + 1 < crossings.length; k++) {
      winding += crossings[k][1];
      if (winding === 0) continue;
      for (let column = Math.ceil(crossings[k][0] / cell - 0.5); (column + 0.5) * cell < crossings[k + 1][0]; column++) {
        filled.add(`${row},${column}`);
      }
    }
  }
  return filled;
}

/** The area filled by one and not the other, over the path's length: how
 * far the two inks' edges lie apart on average, in units. */
function meanDisplacement(a, b, length, cell = 0.25) {
  let differing = 0;
  for (const key of a) if (!b.has(key)) differing++;
  for (const key of b) if (!a.has(key)) differing++;
  return differing * cell * cell / (2 * length);
}

const pathLength = (points) => points.slice(1).reduce((sum, p, i) => sum + Math.hypot(p[0] - points[i][0], p[1] - points[i][1]), 0);

// Each engine: its input made from samples (not timed), the call timed,
// and its output as polygons.
const engines = {
  easel: {
    input: easelSamples,
    call: (input) => easel.inkOutline(input, easel.interface.enums.tool.pen, WIDTH, 0),
    prefix: (samples, n) => easelSamples(samples.slice(0, n)),
    polygons: (output, samples) => easelPolygons(output, samples[0]),
  },
  freehand: {
    input: (samples) => samples.map(([x, y]) => [x, y]),
    call: (input) => getStroke(input, { ...freehandOptions, last: true }),
    prefix: (samples, n) => samples.slice(0, n).map(([x, y]) => [x, y]),
    polygons: (output) => [output],
  },
};

const result = { samples: 0, engines: {} };
for (const [name, engine] of Object.entries(engines)) {
  let wholeSeconds = 0, liveSeconds = 0, samples = 0, liveSamples = 0, crossing = 0, pieces = 0;
  const displacement = [];
  for (const motion of motions) {
    const rasters = [];
    for (const rate of [60, 120, 240]) {
      const s = sample(motion, rate);
      samples += s.length;
      const input = engine.input(s);
      const start = performance.now();
      for (let repeat = 0; repeat < 20; repeat++) engine.call(input);
      wholeSeconds += (performance.now() - start) / 1000 / 20;
      const polygons = engine.polygons(engine.call(input), s);
      pieces += polygons.length;
      crossing += polygons.filter(crossesItself).length;
      rasters.push(raster(polygons));
      if (rate === 120) {
        // A live stroke drawn again whole at every new sample.
        const prefixes = Array.from({ length: s.length - 1 }, (_, k) => engine.prefix(s, k + 2));
        const liveStart = performance.now();
        for (const prefix of prefixes) engine.call(prefix);
        liveSeconds += (performance.now() - liveStart) / 1000;
        liveSamples += s.length;
      }
    }
    const length = pathLength(motion.points);
    displacement.push({ motion: motion.name, '60-240': meanDisplacement(rasters[0], rasters[2], length),
      '120-240': meanDisplacement(rasters[1], rasters[2], length) });
  }
  result.samples = samples;
  result.engines[name] = {
    microsecondsPerSample: wholeSeconds / samples * 1e6,
    liveMicrosecondsPerSample: liveSeconds / liveSamples * 1e6,
    polygons: pieces, crossingThemselves: crossing, displacement,
  };
}
console.log(JSON.stringify(result, null, 1));
