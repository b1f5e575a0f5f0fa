// The WebAssembly module against the protocol's golden vectors: the same
// files the Swift and Python decoders check (Protocol/vectors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Encoding } from '../Page/easel.mjs';
import { easel, root } from './support.mjs';

const vectors = path.join(root, 'Protocol/vectors');
const index = JSON.parse(await readFile(path.join(vectors, 'index.json'), 'utf8'));

async function vectorBytes(file) {
  const contents = await readFile(path.join(vectors, file));
  if (!file.endsWith('.hex')) return new Uint8Array(contents);
  return Uint8Array.from(Buffer.from(contents.toString('utf8').replace(/\s+/g, ''), 'hex'));
}

test('every valid vector decodes in both encodings', async () => {
  for (const vector of index.valid) {
    assert.deepEqual(easel.decode(await vectorBytes(vector.binary), Encoding.binary), { code: 0 }, vector.name);
    assert.deepEqual(easel.decode(await vectorBytes(vector.json), Encoding.json), { code: 0 }, vector.name);
  }
});

test('every invalid vector gets its error code and names the batch it must', async () => {
  for (const vector of index.invalid) {
    const encoding = vector.encoding === 'json' ? Encoding.json : Encoding.binary;
    const refusal = easel.decode(await vectorBytes(vector.file), encoding);
    assert.equal(refusal.code, vector.code, vector.name);
    assert.equal(refusal.batch, vector.batch, vector.name);
  }
});

test('the state-hash fixture hashes as native Swift does, from either encoding', async () => {
  const fixture = index.stateHash;
  for (const [file, encoding] of [[fixture.ops.binary, Encoding.binary], [fixture.ops.json, Encoding.json]]) {
    const document = easel.openDocument();
    assert.equal(document.receive(await vectorBytes(file), encoding), 0);
    assert.equal(document.stateHash, fixture.xxh64);
    document.close();
  }
});
