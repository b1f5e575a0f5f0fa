// A textarea counts in UTF-16 code units; Easel's texts count Unicode
// scalars (code points), so an emoji is one character to a peer whatever
// its encoding. These convert between the two and find what one keystroke,
// paste or cut changed.

/** How many scalars come before `offset` (UTF-16 units) in `string`. */
export function scalarsBefore(string, offset) {
  let scalars = 0;
  for (let index = 0; index < offset && index < string.length; index += 1) {
    if (!isTrailingSurrogateOfPair(string, index)) scalars += 1;
  }
  return scalars;
}

/** The UTF-16 offset of the place after `scalars` scalars of `string`. */
export function utf16Offset(string, scalars) {
  let index = 0;
  for (let counted = 0; counted < scalars && index < string.length; counted += 1) {
    index += isLeadingSurrogateOfPair(string, index) ? 2 : 1;
  }
  return index;
}

/**
 * Where the place after `scalars` scalars of a text laid out as `lines`
 * (the newlines between them one scalar each) is: its line, and its UTF-16
 * offset in that line; a place past the end is the last line's end.
 * @param {string[]} lines
 */
export function placeInLines(lines, scalars) {
  let line = 0;
  for (; line < lines.length - 1; line += 1) {
    const count = [...lines[line]].length;
    if (scalars <= count) break;
    scalars -= count + 1;
  }
  const content = lines[line] ?? '';
  return { line, offset: utf16Offset(content, scalars) };
}

/**
 * What turned `before` into `after`: UTF-16 units `start` to `end` of
 * `before` replaced by `inserted`, never splitting a surrogate pair. When
 * the same result could come from edits at several places ("aa" to
 * "aaa"), `caret` (where the caret is in `after`, UTF-16) says which: what
 * was typed ends at the caret. Null when nothing changed.
 * @returns {{ start: number, end: number, inserted: string } | null}
 */
export function textEdit(before, after, caret = after.length) {
  if (before === after) return null;
  const grown = after.length - before.length;
  if (grown > 0 && caret >= grown && caret <= after.length
      && after.slice(0, caret - grown) + after.slice(caret) === before
      && !splitsPair(after, caret - grown) && !splitsPair(after, caret)) {
    return { start: caret - grown, end: caret - grown, inserted: after.slice(caret - grown, caret) };
  }
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before[start] === after[start]) start += 1;
  let common = 0;
  while (common < shorter - start && before[before.length - 1 - common] === after[after.length - 1 - common]) common += 1;
  // A pair half shared is not shared: widen the change to whole scalars.
  if (start > 0 && (splitsPair(before, start) || splitsPair(after, start))) start -= 1;
  if (common > 0 && (splitsPair(before, before.length - common) || splitsPair(after, after.length - common))) {
    common -= 1;
  }
  return { start, end: before.length - common, inserted: after.slice(start, after.length - common) };
}

/** Whether `offset` falls between the two halves of a surrogate pair. */
function splitsPair(string, offset) {
  return offset > 0 && offset < string.length && isLeadingSurrogateOfPair(string, offset - 1);
}

function isLeadingSurrogateOfPair(string, index) {
  const unit = string.charCodeAt(index);
  if (unit < 0xd800 || unit > 0xdbff) return false;
  const next = string.charCodeAt(index + 1);
  return next >= 0xdc00 && next <= 0xdfff;
}

function isTrailingSurrogateOfPair(string, index) {
  return index > 0 && isLeadingSurrogateOfPair(string, index - 1);
}
