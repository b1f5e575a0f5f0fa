// The module as the Node tests load it: once per file, with every call
// into it checked against the interface's parameter lists.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { instantiateEasel } from '../Page/easel.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const wasmPath = process.env.EASEL_WASM ?? path.join(root, '.build-wasm/easel.wasm');
export const wasmBytes = await readFile(wasmPath);
export const easel = await instantiateEasel(wasmBytes, { checkCalls: true });
/** The module's enums, commands' kinds and gestures, by name. */
export const { tool: Tool, drawingAction: DrawingAction, fit: Fit } = easel.interface.enums;
export const Command = Object.fromEntries(Object.entries(easel.interface.commands).map(([name, { kind }]) => [name, kind]));
