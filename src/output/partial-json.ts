/**
 * A parser for the prefix of a JSON text: what a streamed tool call's arguments say so far. The
 * prefix is completed into whole JSON — an open string is closed where it stops, an unfinished
 * key, number or literal is dropped, open arrays and objects are closed — and parsed.
 *
 * One pass over the text, then `JSON.parse`: O(n) per call. The caller decides how often to call
 * it (a structured answer's partials are parsed at most every 50 ms), so a stream costs
 * O(n × parses), not O(n²) in its deltas.
 * @module
 */

/**
 * What a container expects next: `item` a key (in an object) or a value (in an array), or its
 * end; `colon` the colon after a key; `value` a value after a colon; `comma` a comma or the end.
 */
type Expect = 'item' | 'colon' | 'value' | 'comma';

interface Frame {
  closer: '}' | ']';
  expect: Expect;
}

const LITERALS: ReadonlySet<string> = new Set(['true', 'false', 'null']);

const WHOLE_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** The longest whole JSON number a number's text starts with (`120.` → `120`, `1.5e-` → `1.5`). */
const NUMBER_SO_FAR = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;

/**
 * The value a JSON prefix stands for so far, or `undefined` when it does not start a value yet
 * (empty, whitespace, or not JSON at all).
 *
 * - `{"city": "Par` → `{ city: 'Par' }` (a string value shows as far as it came)
 * - `{"days": [1, 2` → `{ days: [1, 2] }`; `{"da` → `{}` (an unfinished key is dropped)
 * - `{"n": 1.` → `{ n: 1 }` (a number shows as far as it is a whole JSON number, so a value only
 *   grows); `tru` → `undefined`, `true` → `true`
 * @example
 * parsePartialJson('{"title": "Trip to Ky'); // { title: 'Trip to Ky' }
 */
export function parsePartialJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const completed = completeJson(text);
    if (completed === undefined) return undefined;
    try {
      return JSON.parse(completed);
    } catch {
      return undefined;
    }
  }
}

/** Closers of the open containers, innermost first. */
function closers(stack: readonly Frame[]): string {
  let out = '';
  for (let i = stack.length - 1; i >= 0; i--) out += stack[i]!.closer;
  return out;
}

/** The prefix completed into whole JSON text, or `undefined` when no value has started. */
function completeJson(text: string): string | undefined {
  const stack: Frame[] = [];
  // The end of the longest prefix known to be whole once closed. Every push and pop marks a new
  // one, so the containers open there are the ones open at the end: their closers complete it.
  let safeEnd = -1;
  const safe = () => (safeEnd < 0 ? undefined : text.slice(0, safeEnd) + closers(stack));
  const markSafe = (end: number) => (safeEnd = end);
  /** A value ended at `end`: its container now expects a comma. */
  const valueEnded = (end: number) => {
    const top = stack.at(-1);
    if (top) top.expect = 'comma';
    markSafe(end);
  };

  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    const top = stack.at(-1);
    const isKey = top?.closer === '}' && top.expect === 'item';
    if (c === '"') {
      // Scan to the closing quote.
      let j = i + 1;
      let closed = false;
      while (j < text.length) {
        const d = text[j]!;
        if (d === '\\') j += 2;
        else if (d === '"') {
          closed = true;
          break;
        } else j++;
      }
      if (!closed) {
        // A key stops short: drop it. A value string shows as far as it came, minus a cut escape.
        if (isKey) return safe();
        return text.slice(0, openStringEnd(text, i + 1)) + '"' + closers(stack);
      }
      i = j + 1;
      if (isKey) top.expect = 'colon';
      else valueEnded(i);
      continue;
    }
    if (c === ':') {
      if (top) top.expect = 'value';
      i++;
      continue;
    }
    if (c === ',') {
      if (top) top.expect = 'item';
      i++;
      continue;
    }
    if (c === '{' || c === '[') {
      stack.push({ closer: c === '{' ? '}' : ']', expect: 'item' });
      i++;
      markSafe(i);
      continue;
    }
    if (c === '}' || c === ']') {
      stack.pop();
      i++;
      valueEnded(i);
      continue;
    }
    // A number or a literal: whole only when something follows it.
    let j = i;
    while (j < text.length && !' \n\r\t,:]}'.includes(text[j]!)) j++;
    if (j === text.length) {
      const token = text.slice(i);
      if (WHOLE_NUMBER.test(token) || LITERALS.has(token)) return text + closers(stack);
      const number = NUMBER_SO_FAR.exec(token)?.[0];
      return number ? text.slice(0, i) + number + closers(stack) : safe();
    }
    i = j;
    valueEnded(i);
  }
  return safe();
}

/**
 * Where an open string's text can be cut (from `start`, just after its quote): before a
 * trailing backslash or an unfinished `\u` escape.
 */
function openStringEnd(text: string, start: number): number {
  let j = start;
  let end = text.length;
  while (j < text.length) {
    if (text[j] === '\\') {
      const escapeEnd = text[j + 1] === 'u' ? j + 6 : j + 2;
      if (escapeEnd > text.length) {
        end = j;
        break;
      }
      j = escapeEnd;
    } else j++;
  }
  return end;
}
