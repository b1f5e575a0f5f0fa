// The page's own colour picker: a grid of swatches, a spectrum, hue,
// saturation, brightness and opacity sliders with hex, recent colours and,
// where the browser has the EyeDropper API, an eyedropper. Press and hold
// the colour button for a small spectrum to swipe over. The chosen colour
// goes into the hidden `#color` input as hex, with a `change` event, which
// is all the rest of the page reads. The colour model is colour.mjs.
import {
  cssColor, formatHex, fromHSB, parseHex, spectrumColour, swatchGrid, toHSB, withRecent,
} from './colour.mjs';
import { besidePanel } from './layout.mjs';

/**
 * An element of the page by ID (each is there: the page is ours).
 * @type {(id: string) => any}
 */
const $ = (id) => document.getElementById(id);

/** How long a press on the colour button lasts before the quick spectrum opens (ms). */
export const HOLD_MS = 400;
/** The picker's height at most, in CSS pixels: it stays within the stage. */
const POPOVER_HEIGHT = 420;

export class ColourPicker {
  constructor() {
    this.input = $('color');
    this.popover = $('color-picker');
    this.value = parseHex(this.input.value) ?? 0x222222ff;
    this.buildGrid();
    // The spectra are drawn when first shown: at start they would cost the
    // page's first picture tens of milliseconds.
    this.spectraDrawn = false;
    this.listen();
    this.show(this.value);
  }

  /** Chooses a colour: the input, its swatch, the sliders, the recent colours. */
  choose(rgba) {
    this.value = rgba >>> 0;
    this.input.value = formatHex(this.value);
    this.show(this.value);
    try {
      localStorage.setItem('easel.recentColours', JSON.stringify(withRecent(this.recent(), this.value)));
    } catch { /* private mode: no recent colours */ }
    this.showRecent();
    this.input.dispatchEvent(new Event('change'));
  }

  recent() {
    try { return JSON.parse(localStorage.getItem('easel.recentColours') ?? '[]').filter(Number.isInteger); } catch { return []; }
  }

  /** Shows a colour everywhere it shows, without choosing it. */
  show(rgba) {
    $('color-swatch').style.background = cssColor(rgba);
    const { hue, saturation, brightness, opacity } = toHSB(rgba);
    // Grey has no hue of its own: the slider keeps the one it had.
    if (saturation > 0 && brightness > 0) $('color-hue').value = String(Math.round(hue));
    $('color-saturation').value = String(Math.round(saturation * 100));
    $('color-brightness').value = String(Math.round(brightness * 100));
    $('color-opacity').value = String(Math.round(opacity * 100));
    if (document.activeElement !== $('color-hex')) $('color-hex').value = formatHex(rgba);
    $('color-hex').removeAttribute('aria-invalid');
  }

  /** The colour the sliders say. */
  fromSliders() {
    return fromHSB({
      hue: Number($('color-hue').value), saturation: Number($('color-saturation').value) / 100,
      brightness: Number($('color-brightness').value) / 100, opacity: Number($('color-opacity').value) / 100,
    });
  }

  buildGrid() {
    const swatch = (rgba, label) => {
      const button = document.createElement('button');
      button.className = 'swatch';
      button.dataset.colour = formatHex(rgba);
      button.title = label ?? formatHex(rgba);
      button.style.background = cssColor(rgba);
      // A swatch keeps the opacity chosen on the slider.
      button.addEventListener('click', () => this.choose(((rgba & ~0xff) | (this.value & 0xff)) >>> 0));
      return button;
    };
    this.swatch = swatch;
    $('color-grid').replaceChildren(...swatchGrid().flat().map((rgba) => swatch(rgba)));
    this.showRecent();
  }

  showRecent() {
    $('color-recent').replaceChildren(...this.recent().map((rgba) => this.swatch(rgba, `Recent: ${formatHex(rgba)}`)));
  }

  drawSpectra() {
    if (this.spectraDrawn) return;
    this.spectraDrawn = true;
    this.drawSpectrum($('color-spectrum'));
    this.drawSpectrum($('color-quick-spectrum'));
  }

  drawSpectrum(canvas) {
    const context = canvas.getContext('2d');
    const image = context.createImageData(canvas.width, canvas.height);
    for (let y = 0; y < canvas.height; y++) {
      for (let x = 0; x < canvas.width; x++) {
        const rgba = spectrumColour(x / (canvas.width - 1), y / (canvas.height - 1));
        const at = (y * canvas.width + x) * 4;
        image.data[at] = rgba >>> 24;
        image.data[at + 1] = (rgba >>> 16) & 0xff;
        image.data[at + 2] = (rgba >>> 8) & 0xff;
        image.data[at + 3] = 255;
      }
    }
    context.putImageData(image, 0, 0);
  }

  /** The spectrum's colour under a pointer event, at the chosen opacity. */
  atPointer(canvas, event) {
    const box = canvas.getBoundingClientRect();
    return spectrumColour((event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height,
      (this.value & 0xff) / 255);
  }

  open() {
    this.drawSpectra();
    const place = besidePanel(innerWidth, $('options').getBoundingClientRect(),
      $('color-button').getBoundingClientRect(), $('stage').getBoundingClientRect(), POPOVER_HEIGHT);
    if (place) {
      this.popover.style.left = `${place.left}px`;
      this.popover.style.top = `${place.top}px`;
    }
    this.popover.hidden = false;
    $('color-button').setAttribute('aria-expanded', 'true');
  }

  close() {
    this.popover.hidden = true;
    $('color-button').setAttribute('aria-expanded', 'false');
  }

  listen() {
    const button = $('color-button');
    // A tap opens the picker; a press held opens the quick spectrum, and
    // the colour under the finger when it lifts is chosen.
    let hold = null;
    let held = false;
    const quick = $('color-quick');
    const quickSpectrum = $('color-quick-spectrum');
    button.addEventListener('pointerdown', (event) => {
      held = false;
      button.setPointerCapture(event.pointerId);
      hold = setTimeout(() => {
        held = true;
        this.close();
        this.drawSpectra();
        quick.hidden = false;
      }, HOLD_MS);
    });
    button.addEventListener('pointermove', (event) => {
      if (held) this.show(this.atPointer(quickSpectrum, event));
    });
    const release = (event, chosen) => {
      clearTimeout(hold);
      if (!held) return;
      // Measured while the spectrum still shows: hidden, it has no box.
      const box = quickSpectrum.getBoundingClientRect();
      const inside = event.clientX >= box.left && event.clientX <= box.right
        && event.clientY >= box.top && event.clientY <= box.bottom;
      const colour = this.atPointer(quickSpectrum, event);
      quick.hidden = true;
      if (chosen && inside) this.choose(colour);
      else this.show(this.value);
    };
    button.addEventListener('pointerup', (event) => release(event, true));
    button.addEventListener('pointercancel', (event) => release(event, false));
    button.addEventListener('click', () => {
      if (held) { held = false; return; }
      if (this.popover.hidden) this.open(); else this.close();
    });
    document.addEventListener('pointerdown', (event) => {
      const target = /** @type {Node} */ (event.target);
      if (!this.popover.hidden && !this.popover.contains(target) && !button.contains(target)) this.close();
    });
    this.popover.addEventListener('keydown', (event) => { if (event.key === 'Escape') this.close(); });

    const spectrum = $('color-spectrum');
    spectrum.addEventListener('pointerdown', (event) => {
      spectrum.setPointerCapture(event.pointerId);
      this.show(this.atPointer(spectrum, event));
    });
    spectrum.addEventListener('pointermove', (event) => {
      if (spectrum.hasPointerCapture(event.pointerId)) this.show(this.atPointer(spectrum, event));
    });
    spectrum.addEventListener('pointerup', (event) => this.choose(this.atPointer(spectrum, event)));

    // Sliders show as they move and choose when let go: one step to undo.
    for (const id of ['color-hue', 'color-saturation', 'color-brightness', 'color-opacity']) {
      $(id).addEventListener('input', () => $('color-swatch').style.background = cssColor(this.fromSliders()));
      $(id).addEventListener('change', () => this.choose(this.fromSliders()));
    }
    $('color-hex').addEventListener('change', () => {
      const rgba = parseHex($('color-hex').value);
      if (rgba === null) $('color-hex').setAttribute('aria-invalid', 'true');
      else this.choose(rgba);
    });
    const dropper = $('color-eyedropper');
    const EyeDropper = /** @type {any} */ (window).EyeDropper;
    if (EyeDropper) {
      dropper.hidden = false;
      dropper.addEventListener('click', async () => {
        try {
          const { sRGBHex } = await new EyeDropper().open();
          const rgba = parseHex(sRGBHex);
          if (rgba !== null) this.choose(((rgba & ~0xff) | (this.value & 0xff)) >>> 0);
        } catch { /* cancelled */ }
      });
    }
    // Set from elsewhere (a script, a test): the picker follows.
    this.input.addEventListener('change', () => {
      const rgba = parseHex(this.input.value);
      if (rgba !== null && rgba !== this.value) {
        this.value = rgba;
        this.show(rgba);
      }
    });
  }
}
