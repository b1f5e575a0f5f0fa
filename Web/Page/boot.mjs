// Loaded async ahead of the page's other scripts: the module compiles
// while they load, not after them.
import { compileEasel } from './easel.mjs';

compileEasel().catch(() => {
  // canvas.mjs awaits the same promise and says what failed.
});
