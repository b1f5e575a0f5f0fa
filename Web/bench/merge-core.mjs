// The timed part of `easel bench wasm`, the same under Node and in
// Chromium: applies a merge workload's `ops` messages through the module,
// one crossing per message (never per op). The workload is what `easel
// bench wasm` writes: a base message, then the messages to time, each as a
// little-endian 32-bit length and its bytes.
export function timeMerge(easel, bytes, now) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const messages = [];
  for (let offset = 0; offset < bytes.length;) {
    const length = view.getUint32(offset, true);
    messages.push(bytes.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  const [base, ...timed] = messages;
  const document = easel.openDocument();
  if (document.receive(base) !== 0) throw new Error('the base message did not apply');
  const start = now();
  for (const message of timed) {
    if (document.receive(message) !== 0) throw new Error('a message did not apply');
  }
  return { seconds: (now() - start) / 1000, hash: document.stateHash };
}
