// The timed part of `easel bench wasm`, the same under Node and in
// Chromium: applies a merge workload's `ops` messages through the module,
// one crossing per message (never per op), the median of several passes.
// The workload is what `easel
// bench wasm` writes: a base message, then the messages to time, each as a
// little-endian 32-bit length and its bytes.
export function timeMerge(easel, bytes, now, passes = 7, warmUps = 3) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const messages = [];
  for (let offset = 0; offset < bytes.length;) {
    const length = view.getUint32(offset, true);
    messages.push(bytes.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  const [base, ...timed] = messages;
  // The first passes are not timed: the engine then runs its optimised
  // code, as a page that has been merging for a while does (V8 compiles a
  // module with a baseline compiler first and swaps in optimised code for
  // the functions that turn out hot, compiled on a background thread that
  // competes for two busy cores here: after one warm-up Chromium's next
  // pass still took 1.5-3x its later ones). Then `passes` timed ones, each
  // on a fresh document: one pass is tens of milliseconds, too short to
  // time alone on a shared machine. Native Swift is timed the same way
  // (BenchWasm.swift).
  const seconds = [];
  let hash;
  for (let pass = 0; pass < warmUps + passes; pass++) {
    const document = easel.openDocument();
    if (document.receive(base) !== 0) throw new Error('the base message did not apply');
    const start = now();
    for (const message of timed) {
      if (document.receive(message) !== 0) throw new Error('a message did not apply');
    }
    if (pass >= warmUps) seconds.push((now() - start) / 1000);
    hash = document.stateHash;
    document.close();
  }
  const passSeconds = [...seconds];
  seconds.sort((a, b) => a - b);
  return { seconds: seconds[Math.floor(seconds.length / 2)], hash, passSeconds };
}
