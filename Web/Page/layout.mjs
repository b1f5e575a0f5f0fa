// Where things go on the screen. The page has two layouts: a phone's at
// PHONE_MAX_WIDTH CSS pixels or less (a compact top bar, the tools along
// the bottom; the style sheet's `@media (max-width: 640px)`, which a Node
// test holds to this number) and a laptop's above. No DOM: Node tests load
// it.

export const PHONE_MAX_WIDTH = 640;
/** Space between the options panel and a popover beside it, in CSS pixels. */
export const POPOVER_GAP = 8;

/** Whether a viewport this wide gets the phone's layout. */
export function isPhone(width) {
  return width <= PHONE_MAX_WIDTH;
}

/**
 * Where a popover of `height` goes on a laptop: just right of the options
 * panel, level with the button that opened it, kept within the stage;
 * null on a phone, whose style sheet puts popovers along the bottom. Boxes
 * are the elements' client rectangles; the answer is relative to the stage.
 * @param {{ right: number }} panel
 * @param {{ top: number }} button
 * @param {{ left: number, top: number, height: number }} stage
 */
export function besidePanel(viewportWidth, panel, button, stage, height) {
  if (isPhone(viewportWidth)) return null;
  return {
    left: panel.right - stage.left + POPOVER_GAP,
    top: Math.max(POPOVER_GAP, Math.min(button.top - stage.top, stage.height - height)),
  };
}
