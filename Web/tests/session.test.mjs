// Easel's client sync engine running in the WebAssembly module, driven the
// way the page drives it, with the server's side played by golden
// messages from Protocol/vectors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { easel, root, Command, Tool, DrawingAction } from './support.mjs';
const welcomeTail = Uint8Array.from(Buffer.from(
  (await readFile(path.join(root, 'Protocol/vectors/valid/welcome-tail.hex'), 'utf8')).replace(/\s+/g, ''), 'hex'));

const hello = {
  document: 'web/one', replica: '00000000000000a1',
  user: { name: 'Ada', initials: 'A', color: '#336699ff' },
};
const MESSAGE = { hello: 1, push: 3 };

/** A session that connected and got the welcome; the hello it sent. */
function welcomed(saved = undefined) {
  const session = easel.openSession(hello, 1000, saved);
  session.connectionOpened(1000);
  const sent = session.takeOutputs();
  assert.equal(session.receive(welcomeTail, 1001), 0);
  return { session, sent };
}

function pushes(outputs) {
  return outputs.filter((output) => output.send && output.send[1] === MESSAGE.push).map((output) => output.send);
}

test('a session says hello on connecting and is connected after the welcome', () => {
  const { session, sent } = welcomed();
  assert.equal(sent.length, 1);
  assert.equal(sent[0].send[1], MESSAGE.hello);
  assert.equal(easel.decode(sent[0].send).code, 0);
  assert.equal(session.connectionState, 'connected');
  session.close();
});

test('a placed emoji is drawn at once, pushed to the server, and undoable', () => {
  const { session } = welcomed();
  assert.ok(session.command(Command.placeEmoji, { text: '🦊', a: 120, b: 80, c: 40, now: 1002 }));
  const drawn = session.render();
  const fox = drawn.find((change) => change.draw && change.svg.includes('🦊'));
  assert.ok(fox, JSON.stringify(drawn));
  assert.match(fox.svg, /^<g class="emoji" data-id="/);
  assert.deepEqual(drawn.find((change) => change.order).order, [fox.draw]);
  assert.deepEqual(session.render(), [], 'nothing changed since');
  const sent = pushes(session.takeOutputs());
  assert.equal(sent.length, 1);
  assert.equal(easel.decode(sent[0]).code, 0);
  assert.ok(session.flags.canUndo && session.flags.unacknowledged);
  assert.ok(session.command(Command.undo, { now: 1003 }));
  assert.deepEqual(session.render(), [{ remove: fox.draw }]);
  session.close();
});

test('new entities and entities moved in the z-order are placed by the one just above, topmost first', () => {
  const { session } = welcomed();
  session.render();
  session.command(Command.placeEmoji, { text: '🦊', a: 100, b: 100, c: 40 });
  session.command(Command.placeEmoji, { text: '🎈', a: 300, b: 100, c: 40 });
  const both = session.render();
  const [fox, balloon] = both.filter((change) => change.draw).map((change) => change.draw);
  // Both new: the balloon (placed last) goes on top first, then the fox under it.
  assert.deepEqual(both.filter((change) => change.place !== undefined),
    [{ place: balloon, above: null }, { place: fox, above: balloon }]);
  // The star overlaps the balloon: send backward passes it (and only it).
  session.command(Command.placeEmoji, { text: '⭐️', a: 320, b: 100, c: 40 });
  const star = session.render().find((change) => change.draw).draw;
  assert.ok(session.gesture('tap', 320, 100));
  assert.ok(session.flags.canSendBackward && !session.flags.canBringForward && session.flags.canSendToBack);
  assert.ok(session.command(Command.sendBackward));
  assert.deepEqual(session.render(), [{ place: star, above: balloon }], 'under the balloon, drawn as it was');
  session.close();
});

test('a tap on an entity selects it and a tap on the background clears the selection', () => {
  const { session } = welcomed();
  session.command(Command.placeEmoji, { text: '⭐️', a: 200, b: 200, c: 40 });
  assert.ok(session.gesture('tap', 200, 200));
  assert.equal(session.selection.length, 1);
  assert.ok(session.flags.hasSelection);
  assert.ok(session.gesture('tap', 900, 900));
  assert.deepEqual(session.selection, []);
  session.close();
});

test('a drag moves the entity once the gesture ends, as one push', () => {
  const { session } = welcomed();
  session.command(Command.placeEmoji, { text: '⭐️', a: 200, b: 200, c: 40 });
  session.takeOutputs();
  session.render();
  assert.ok(session.gesture('dragBegan', 200, 200));
  assert.ok(session.gesture('dragChanged', 30, 0));
  assert.ok(session.flags.gestureInFlight);
  assert.deepEqual(session.render(), [], 'in flight, the document has not changed');
  const [[moving, transform]] = [...session.preview().transforms];
  assert.equal(transform, 'translate(230 200)', `${moving} is shown moved by transform alone`);
  assert.deepEqual(session.viewport(), [0, 0, 1]);
  assert.equal([...session.emojiKey].length, 4);
  assert.ok(session.gesture('dragEnded', 50, 10));
  const [moved] = session.render();
  assert.match(moved.svg, /translate\(250 210\)/);
  assert.equal(pushes(session.takeOutputs()).length, 1);
  session.close();
});

test('a stroke drawn with pressure streams its samples while the finger moves', () => {
  const { session } = welcomed();
  assert.ok(session.gesture('drawBegan', 10, 10, { time: 0, force: 0.5 }));
  assert.ok(session.gesture('drawMoved', 20, 15, { time: 0.016, force: 0.6 }));
  assert.equal(pushes(session.takeOutputs()).length, 1, 'the create and the first samples, before the end');
  assert.ok(session.gesture('drawMoved', 30, 20, { time: 0.033 }));
  assert.ok(session.gesture('drawEnded'));
  const [stroke] = session.render().filter((change) => change.draw);
  assert.match(stroke.svg, /^<g class="stroke"/);
  // The ink outline round the samples (0,0), (10,5), (20,10): it starts
  // beside the first and turns round the last.
  assert.match(stroke.svg, /<path d="M-0\.\d+ 0\.\d+L.* 19\.\d+ 10\.\d+A/);
  session.close();
});

test('a saved session resumes with its replica and pushes its unacknowledged edits again', () => {
  const first = welcomed().session;
  first.command(Command.placeEmoji, { text: '🌙', a: 50, b: 50, c: 40 });
  const [push] = pushes(first.takeOutputs());
  const saved = first.saved();
  first.close();
  const { session } = welcomed(saved);
  const [again] = pushes(session.takeOutputs());
  // The same op again (the batch number may differ): the bytes after the batch match.
  assert.deepEqual(again.subarray(3), push.subarray(3));
  assert.equal(session.render().filter((change) => change.draw).length, 1);
  session.close();
});

test('with the canvas size known, only entities on or near the screen are drawn, and a pan draws the new ones', () => {
  const { session } = welcomed();
  session.setCanvasSize(800, 600);
  session.command(Command.placeEmoji, { text: '🦊', a: 100, b: 100, c: 40 });
  session.command(Command.placeEmoji, { text: '🎈', a: 5000, b: 100, c: 40 });
  const first = session.render();
  const drawn = first.filter((change) => change.draw);
  assert.equal(drawn.length, 1, JSON.stringify(first));
  assert.match(drawn[0].svg, /🦊/);
  // A drag on the background pans 4,500 units to the right: the balloon
  // comes into view, the fox leaves the area drawn.
  assert.ok(session.gesture('dragBegan', 400, 500));
  assert.ok(session.gesture('dragEnded', -4500, 0));
  const panned = session.render();
  assert.ok(panned.some((change) => change.draw && change.svg.includes('🎈')), JSON.stringify(panned));
  assert.deepEqual(panned.filter((change) => change.remove).map((change) => change.remove), [drawn[0].draw]);
  session.close();
});

test('after a welcome the entities on the screen are drawn first, and those around it over the renders after', () => {
  const first = welcomed().session;
  first.command(Command.placeEmoji, { text: '🦊', a: 100, b: 100, c: 40 });
  first.command(Command.placeEmoji, { text: '🎈', a: 1000, b: 100, c: 40 });
  first.command(Command.placeEmoji, { text: '🌵', a: 5000, b: 100, c: 40 });
  const saved = first.saved();
  first.close();
  // The three come back in the welcome's document (unacknowledged edits).
  const { session } = welcomed(saved);
  session.setCanvasSize(800, 600);
  const screen = session.render();
  assert.deepEqual(screen.filter((change) => change.draw).map((change) => [...change.svg.matchAll(/🦊|🎈|🌵/gu)].join('')),
    ['🦊'], 'the fox on screen only');
  assert.equal(screen.find((change) => change.order).order.length, 1);
  assert.ok(session.flags.moreToDraw, 'the balloon, half a screen off, is still to come');
  assert.equal(session.waiting, 1);
  const around = session.render();
  assert.deepEqual(around.filter((change) => change.draw).map((change) => [...change.svg.matchAll(/🦊|🎈|🌵/gu)].join('')),
    ['🎈']);
  assert.ok(around.some((change) => change.place !== undefined || change.order?.length === 2), JSON.stringify(around));
  assert.ok(!session.flags.moreToDraw, 'the cactus, far off, is never drawn');
  assert.equal(session.waiting, 0);
  session.close();
});

test('a pan that shows thousands of entities draws them 2,000 a render, saying more are to come, and all in z-order', () => {
  const { session } = welcomed();
  session.setCanvasSize(800, 600);
  for (let index = 0; index < 5000; index++) {
    session.command(Command.placeEmoji, { text: '🦊', a: 4700 + (index % 100) * 6, b: 10 + Math.floor(index / 100) * 6, c: 4 });
  }
  assert.equal(session.render().filter((change) => change.draw).length, 0, 'all beyond the area drawn');
  assert.ok(session.gesture('dragBegan', 400, 500));
  assert.ok(session.gesture('dragEnded', -4500, 0));
  const counts = [];
  let order = [];
  for (let render = 0; render < 4; render++) {
    const changes = session.render();
    counts.push([changes.filter((change) => change.draw).length, session.flags.moreToDraw]);
    order = changes.find((change) => change.order)?.order ?? order;
  }
  assert.deepEqual(counts, [[2000, true], [2000, true], [1000, false], [0, false]]);
  assert.equal(order.length, 5000, 'the whole order after the last');
  session.close();
});

test('bad input is refused with a clear code and changes nothing', () => {
  assert.throws(() => easel.openSession({ ...hello, document: '../etc' }), /error 108/);
  const { session } = welcomed();
  assert.equal(session.receive(new Uint8Array([1, 9])), 100, 'a truncated ping');
  assert.equal(session.command(99), false);
  assert.equal(session.command(Command.placeShape, { integer: 77, c: 10, d: 10 }), false);
  assert.equal(session.gesture('tap', NaN, 0), false);
  assert.deepEqual(session.render(), []);
  assert.ok(session.gesture('drawBegan', 10, 10, { time: 0.5 }));
  session.render();
  assert.equal(session.gesture('drawMoved', 20, 20, { time: 0.1 }), false, 'a draw point back in time');
  assert.deepEqual(session.render(), []);
  session.close();
});

test('a frame renders only the entities that ops named since the last one', () => {
  const { session } = welcomed();
  for (let index = 0; index < 50; index++) {
    session.command(Command.placeEmoji, { text: '🌱', a: 20 + 15 * index, b: 300, c: 20 });
  }
  assert.equal(session.render().filter((change) => change.draw).length, 50);
  session.takeOutputs();
  assert.ok(session.gesture('tap', 20, 300));
  assert.deepEqual(session.render(), [], 'a selection changes no entity');
  assert.ok(session.gesture('dragBegan', 20, 300));
  assert.ok(session.gesture('dragEnded', 0, 40));
  const changes = session.render();
  assert.equal(changes.length, 1, JSON.stringify(changes.map((change) => Object.keys(change))));
  assert.match(changes[0].svg, /translate\(20 340\)/);
  session.close();
});

test("this page's object eraser, lasso and shape box show as a trace while in flight, and are gone after", () => {
  const { session } = welcomed();
  for (const [action, element] of [[DrawingAction.eraseObjects, '<polyline class="trace"'],
    [DrawingAction.lasso, '<polygon class="trace"'], [DrawingAction.shape, '<rect class="trace"']]) {
    assert.ok(session.command(Command.setDrawing, { integer: 0x000000ff, a: 24, b: Tool.pen, d: action }));
    assert.ok(session.gesture('drawBegan', 10, 10, { time: 0 }));
    assert.ok(session.gesture('drawMoved', 60, 40, { time: 0.05 }));
    assert.ok(session.gesture('drawMoved', 20, 80, { time: 0.1 }));
    const { strokes } = session.preview();
    assert.ok(strokes.get('self')?.startsWith(element), `${action}: ${strokes.get('self')}`);
    assert.ok(session.gesture('drawEnded'));
    assert.equal(session.preview().strokes.has('self'), false);
  }
  session.close();
});

test('the shape tool places its shape where the canvas is tapped, or in the box a drag makes, with its fill', () => {
  const { session } = welcomed();
  assert.ok(session.command(Command.shapeTool, { b: 1, integer: 0x2b7cff40 }));
  assert.ok(session.gesture('drawBegan', 100, 100, { time: 0 }));
  assert.ok(session.gesture('drawMoved', 200, 160, { time: 0.1 }));
  assert.ok(session.gesture('drawEnded'));
  assert.ok(session.gesture('drawBegan', 300, 300, { time: 0 }));
  assert.ok(session.gesture('drawEnded'));
  const shapes = session.render().filter((change) => change.draw).map((change) => change.svg);
  assert.equal(shapes.length, 2);
  assert.match(shapes[0], /<ellipse rx="50" ry="30"/);
  assert.match(shapes[1], /<ellipse rx="60" ry="40"/);
  assert.match(shapes[1], /fill="#2b7cff"/);
  assert.equal(session.command(Command.shapeTool, { b: 9 }), false, 'no shape 9');
  session.close();
});

const BLOB = 'ab'.repeat(32);

test('a placed image shows at once but its create, and every edit after it, waits until the page says its blob is stored', () => {
  const { session } = welcomed();
  assert.ok(session.placeImage(BLOB, 100, 100, 300, 200, 1002));
  const drawn = session.render().find((change) => change.draw);
  assert.match(drawn.svg, new RegExp(`<image [^>]*href="blobs/${BLOB}"`));
  assert.deepEqual(session.awaitedBlobs, [BLOB]);
  assert.equal(pushes(session.takeOutputs()).length, 0, 'nothing goes out while the upload runs');
  assert.ok(session.command(Command.placeEmoji, { text: '🦊', a: 20, b: 20, c: 40, now: 1003 }));
  assert.equal(pushes(session.takeOutputs()).length, 0, 'the emoji waits behind the image (counter order)');
  session.blobStored(BLOB);
  assert.deepEqual(session.awaitedBlobs, []);
  const released = pushes(session.takeOutputs());
  assert.equal(released.length, 1, 'the image and the emoji go out together once the blob is stored');
  session.close();
});

test('a failed upload undoes the place and says why', () => {
  const { session } = welcomed();
  assert.ok(session.placeImage(BLOB, 100, 100, 300, 200, 1002));
  session.takeOutputs();
  session.blobFailed(BLOB, '415: not an image');
  const outputs = session.takeOutputs();
  assert.deepEqual(outputs.find((output) => output.placeFailed), { placeFailed: BLOB, reason: '415: not an image' });
  assert.ok(outputs.some((output) => output.disconnect !== undefined), 'the session reloads the document without it');
  assert.equal(pushes(outputs).length, 0, 'the image never goes out');
  session.close();
});

test('a reloaded page still waits for the blobs the page before was uploading', () => {
  const { session } = welcomed();
  assert.ok(session.placeImage(BLOB, 100, 100, 300, 200, 1002));
  const saved = session.saved();
  session.close();
  const resumed = easel.openSession(hello, 2000, saved);
  assert.deepEqual(resumed.awaitedBlobs, [BLOB]);
  resumed.close();
});

test('an image is refused a name that is not a blob\'s, and nothing waits for it', () => {
  const { session } = welcomed();
  assert.throws(() => session.placeImage('not-a-hash', 100, 100, 10, 10), /not a blob's name/);
  assert.equal(session.placeImage(BLOB, NaN, 100, 10, 10), false);
  assert.deepEqual(session.awaitedBlobs, []);
  session.close();
});

test('the background colour and image render as their own record, and the image waits for its blob like a place', () => {
  const { session } = welcomed();
  session.render();
  assert.ok(session.command(Command.backgroundColor, { integer: 0xfaf4e6ff | 0, now: 1002 }));
  assert.deepEqual(session.render(), [{ background: '#faf4e6ff', svg: '' }]);
  session.takeOutputs();
  assert.ok(session.setBackgroundImage(BLOB, 800, 600, 'cover', 1003));
  const [change] = session.render();
  assert.equal(change.background, '#faf4e6ff');
  assert.match(change.svg, new RegExp(`<image id="background-image" x="-400" y="-300" width="800" height="600" href="blobs/${BLOB}" preserveAspectRatio="xMidYMid slice"/>`));
  assert.equal(pushes(session.takeOutputs()).length, 0, 'the background waits for its blob');
  session.blobStored(BLOB);
  assert.equal(pushes(session.takeOutputs()).length, 1);
  assert.ok(session.command(Command.backgroundNoImage, { now: 1004 }));
  assert.deepEqual(session.render(), [{ background: '#faf4e6ff', svg: '' }]);
  assert.throws(() => session.setBackgroundImage(BLOB, 10, 10, 7), /not a fit/);
  session.close();
});

test('a session told the document moved to a node connects next with ?node=<node>, for the router', async () => {
  const { Connection } = await import('../Page/connection.mjs');
  const movedVector = Uint8Array.from(Buffer.from(
    (await readFile(path.join(root, 'Protocol/vectors/valid/error-moved.hex'), 'utf8')).replace(/\s+/g, ''), 'hex'));
  const opened = [];
  const real = globalThis.WebSocket;
  globalThis.WebSocket = class {
    static CONNECTING = 0;
    static OPEN = 1;
    constructor(url) { opened.push(url); this.readyState = 0; }
    close() {}
  };
  try {
    const { session } = welcomed();
    const connection = new Connection(session, 'ws://router/d/web/one', () => {}, () => 0);
    assert.equal(session.movedTo, null);
    assert.deepEqual(opened, ['ws://router/d/web/one'], 'the router chooses at first');
    assert.equal(session.receive(movedVector, 1002), 0);
    assert.equal(session.movedTo, 'node2');
    connection.socket = null;
    connection.connect();
    assert.equal(opened[1], 'ws://router/d/web/one?node=node2');
    session.close();
  } finally {
    globalThis.WebSocket = real;
  }
});
