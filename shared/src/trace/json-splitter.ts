import { TraceFormatError, TraceTooLarge } from './errors';
import type { TraceLimits } from './types';

const enum Mode { begin, key, keyText, colon, value, afterValue, events, afterEvent, scan, scalar, end }

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const COLON = 58;
/** Longest top-level key or skipped top-level scalar (e.g. `"displayTimeUnit": "ns"`). */
const MAX_TOKEN = 1024;

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** Whether an object's values nest deeper than `levels` more objects or arrays. */
function deeper(o: Record<string, unknown> | unknown[], levels: number): boolean {
  for (const key in o) {
    const v = (o as Record<string, unknown>)[key];
    if (typeof v === 'object' && v !== null && (levels === 0 || deeper(v as Record<string, unknown>, levels - 1))) return true;
  }
  return false;
}

/**
 * Splits a Chrome/Perfetto JSON trace (`{"traceEvents": […], …}` or a bare `[…]`) into its events
 * as chunks of it arrive, holding no more of the text than the chunk and one unfinished event: the
 * events that end in a chunk are one stretch of it (objects and commas), read with one `JSON.parse`
 * and handed to `onEvent` one by one; the other top-level values are scanned and dropped. Throws
 * `TraceFormatError` on text that is not such a trace, or is cut short (`end`), and `TraceTooLarge`
 * past `maxEventBytes` for one event or `maxDepth` of nesting.
 */
export class JsonEventSplitter {
  private mode = Mode.begin;
  /** Whether the events array is the top-level value (a bare array). */
  private bare = false;
  private first = true;
  private token = '';
  private tokenEscape = false;
  /** The scan of a nested value: closers expected, string state, whether its text is kept. */
  private closers: number[] = [];
  private inString = false;
  private escape = false;
  private keep = false;
  /** The start of the event not yet ended, from chunks before this one. */
  private carry = '';
  /** Where in this chunk the unfinished event starts (0 when it began in an earlier one). */
  private eventStart = -1;
  /** The stretch of this chunk whose events have ended: from, to, how many. */
  private batchFrom = -1;
  private batchTo = -1;
  private batchCount = 0;
  private events = 0;
  private offset = 0;
  /** Where the next backslash of this chunk is, from where it was last looked for (-1: none left; -2: not looked for yet). */
  private backslash = -2;

  constructor(
    private readonly onEvent: (value: unknown, index: number) => void,
    private readonly limits: Pick<TraceLimits, 'maxEventBytes' | 'maxDepth'>,
  ) {}

  /** Reads the next piece of the text. */
  write(s: string): void {
    let i = 0;
    const n = s.length;
    const continued = this.mode === Mode.scan && this.keep;
    this.eventStart = continued ? 0 : -1;
    this.batchFrom = this.eventStart;
    this.batchCount = 0;
    this.backslash = -2;
    let fast = true;
    while (i < n) {
      switch (this.mode) {
        case Mode.scan: {
          // At the start of an event with none waiting in the batch: read as many as one parse may take.
          if (fast && this.keep && this.batchCount === 0 && i <= this.eventStart + 1) {
            const next = this.readEvents(s, this.eventStart);
            if (next < 0) fast = false;
            else {
              i = next;
              continue;
            }
          }
          i = this.scan(s, i);
          if (this.closers.length === 0) this.afterScan(i);
          continue;
        }
        case Mode.keyText: {
          i = this.readKey(s, i);
          continue;
        }
        case Mode.scalar: {
          i = this.readScalar(s, i);
          continue;
        }
        default:
          break;
      }
      const c = s.charCodeAt(i);
      if (isSpace(c)) {
        i++;
        continue;
      }
      this.structural(c, s, i);
      i++;
    }
    if (this.batchCount > 0) this.flush(this.carry + s.slice(this.batchFrom, this.batchTo));
    if (this.mode === Mode.scan && this.keep) {
      this.carry += s.slice(this.eventStart);
      this.checkSize(this.carry.length);
    }
    this.offset += n;
  }

  /**
   * The fast way through a run of events, without scanning them: the stretch from the event that
   * starts at `start` (with its start from earlier chunks) to the last `}` before a `,` and a `{`,
   * within `maxEventBytes`, is parsed at once; when it parses as objects nested no deeper than
   * `maxDepth`, it is exactly a run of whole events (text cut inside a string or a nested value is
   * not valid JSON), which are handed on. Returns where reading goes on (just past the run), or -1
   * when there is no such stretch: the scan then reads this chunk, finding the same events or
   * the error in them.
   */
  private readEvents(s: string, start: number): number {
    const budget = this.limits.maxEventBytes - this.carry.length;
    let end = Math.min(s.length - 1, start + budget - 1);
    for (let tries = 0; tries < 16; tries++) {
      end = s.lastIndexOf('}', end);
      if (end <= start) return -1;
      let k = end + 1;
      while (k < s.length && isSpace(s.charCodeAt(k))) k++;
      if (s.charCodeAt(k) === COMMA) {
        k++;
        while (k < s.length && isSpace(s.charCodeAt(k))) k++;
        if (s.charCodeAt(k) === OPEN_BRACE) break;
      }
      end -= 1;
    }
    if (s.charCodeAt(end) !== CLOSE_BRACE || end <= start) return -1;
    let values: unknown[];
    try {
      values = JSON.parse(`[${this.carry}${s.slice(start, end + 1)}]`) as unknown[];
    } catch {
      return -1;
    }
    const depth = this.limits.maxDepth;
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (typeof v !== 'object' || v === null || Array.isArray(v) || deeper(v as Record<string, unknown>, depth - 1)) return -1;
    }
    const first = this.events;
    this.events += values.length;
    this.carry = '';
    this.closers.length = 0;
    this.inString = false;
    this.escape = false;
    this.mode = Mode.afterEvent;
    this.eventStart = -1;
    this.batchFrom = -1;
    for (let k = 0; k < values.length; k++) this.onEvent(values[k], first + k);
    return end + 1;
  }

  /** Reads the events of one stretch, all at once (one parse per chunk, not per event). */
  private flush(text: string): void {
    const first = this.events - this.batchCount;
    this.carry = '';
    let values: unknown[];
    try {
      values = JSON.parse(`[${text}]`) as unknown[];
    } catch (err) {
      throw new TraceFormatError(`traceEvents[${first}..${this.events - 1}] are not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (let k = 0; k < values.length; k++) this.onEvent(values[k], first + k);
  }

  private checkSize(chars: number): void {
    if (chars > this.limits.maxEventBytes) throw new TraceTooLarge(`traceEvents[${this.events}] is longer than ${this.limits.maxEventBytes} characters`);
  }

  /** The text has ended: throws unless it was a whole trace. Returns how many events it held. */
  end(): number {
    if (this.mode !== Mode.end) throw new TraceFormatError(`the trace is cut short: it ends ${this.where()} after ${this.events} events`);
    return this.events;
  }

  private where(): string {
    switch (this.mode) {
      case Mode.begin: return 'before any JSON';
      case Mode.scan: return this.keep ? 'inside an event' : 'inside a top-level value';
      case Mode.events: case Mode.afterEvent: return 'inside the traceEvents array';
      default: return 'inside the top-level object';
    }
  }

  private fail(message: string, i: number): never {
    throw new TraceFormatError(`${message} (at character ${this.offset + i})`);
  }

  /** One structural character outside any value being scanned. */
  private structural(c: number, s: string, i: number): void {
    switch (this.mode) {
      case Mode.begin:
        if (c === OPEN_BRACE) this.mode = Mode.key;
        else if (c === OPEN_BRACKET) {
          this.bare = true;
          this.mode = Mode.events;
        } else this.fail(`not a JSON trace: it starts with ${JSON.stringify(s[i])}, not { or [`, i);
        this.first = true;
        return;
      case Mode.key:
        if (c === QUOTE) {
          this.mode = Mode.keyText;
          this.token = '';
          this.tokenEscape = false;
        } else if (c === CLOSE_BRACE && this.first) this.mode = Mode.end;
        else this.fail('expected a key in the trace object', i);
        return;
      case Mode.colon:
        if (c !== COLON) this.fail('expected : after a key of the trace object', i);
        this.mode = Mode.value;
        return;
      case Mode.value:
        if (this.token === 'traceEvents') {
          if (c !== OPEN_BRACKET) this.fail('traceEvents must be an array', i);
          this.mode = Mode.events;
          this.first = true;
        } else if (c === OPEN_BRACE || c === OPEN_BRACKET || c === QUOTE) {
          this.startScan(c, false);
        } else {
          this.mode = Mode.scalar;
          this.token = s[i]!;
        }
        return;
      case Mode.afterValue:
        if (c === COMMA) {
          this.mode = Mode.key;
          this.first = false;
        } else if (c === CLOSE_BRACE) this.mode = Mode.end;
        else this.fail('expected , or } in the trace object', i);
        return;
      case Mode.events:
        if (c === OPEN_BRACE) {
          this.startScan(c, true);
          this.eventStart = i;
          if (this.batchFrom < 0) this.batchFrom = i;
        }
        else if (c === CLOSE_BRACKET && this.first) this.closeEvents();
        else this.fail(`traceEvents[${this.events}] is not an object`, i);
        return;
      case Mode.afterEvent:
        if (c === COMMA) {
          this.mode = Mode.events;
          this.first = false;
        } else if (c === CLOSE_BRACKET) this.closeEvents();
        else this.fail(`expected , or ] after traceEvents[${this.events - 1}]`, i);
        return;
      case Mode.end:
        this.fail('text after the end of the trace', i);
        return;
      default:
        return;
    }
  }

  private closeEvents(): void {
    this.mode = this.bare ? Mode.end : Mode.afterValue;
  }

  private startScan(c: number, keep: boolean): void {
    this.mode = Mode.scan;
    this.keep = keep;
    this.inString = c === QUOTE;
    this.escape = false;
    this.closers = [c === OPEN_BRACE ? CLOSE_BRACE : c === OPEN_BRACKET ? CLOSE_BRACKET : QUOTE];
  }

  /**
   * Scans from `i` while the value is open; returns where it stopped: just past the value's last
   * character, or `s.length`. Strings are skipped with `indexOf` where no escape is near (the
   * next backslash is looked for once per chunk and again only past it, so a chunk with none
   * costs one search, not one per event).
   */
  private scan(s: string, i: number): number {
    const n = s.length;
    const closers = this.closers;
    const maxDepth = this.limits.maxDepth;
    let backslash = this.backslash;
    while (i < n) {
      if (this.inString) {
        if (!this.escape) {
          // Jump to the string's next quote or backslash, whichever comes first; none: it runs on past this chunk.
          const q = s.indexOf('"', i);
          if (backslash !== -1 && backslash < i) backslash = s.indexOf('\\', i);
          const next = q >= 0 && (backslash === -1 || backslash > q) ? q : backslash;
          if (next === -1) {
            i = n;
            continue;
          }
          i = next;
        }
        const c = s.charCodeAt(i++);
        if (this.escape) this.escape = false;
        else if (c === BACKSLASH) this.escape = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (closers.length === 1 && closers[0] === QUOTE) {
            closers.pop();
            this.backslash = backslash;
            return i;
          }
        }
        continue;
      }
      const c = s.charCodeAt(i++);
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (closers.length >= maxDepth) throw new TraceTooLarge(`the trace nests deeper than ${maxDepth} levels (at character ${this.offset + i - 1})`);
        closers.push(c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (closers.pop() !== c) this.fail(`mismatched ${String.fromCharCode(c)}`, i - 1);
        if (closers.length === 0) {
          this.backslash = backslash;
          return i;
        }
      }
    }
    this.backslash = backslash;
    return i;
  }

  /** The value being scanned ended just before `i`. */
  private afterScan(i: number): void {
    if (this.keep) {
      this.checkSize((this.eventStart === 0 ? this.carry.length : 0) + i - this.eventStart);
      this.events++;
      this.batchCount++;
      this.batchTo = i;
      this.mode = Mode.afterEvent;
    } else {
      this.mode = Mode.afterValue;
    }
  }

  private readKey(s: string, i: number): number {
    const n = s.length;
    while (i < n) {
      const c = s.charCodeAt(i++);
      if (this.tokenEscape) this.tokenEscape = false;
      else if (c === BACKSLASH) this.tokenEscape = true;
      else if (c === QUOTE) {
        try {
          this.token = JSON.parse(`"${this.token}"`) as string;
        } catch {
          this.fail('a key of the trace object is not a valid string', i - 1);
        }
        this.mode = Mode.colon;
        return i;
      }
      if (this.token.length >= MAX_TOKEN) throw new TraceTooLarge(`a key of the trace object is longer than ${MAX_TOKEN} characters`);
      this.token += s[i - 1];
    }
    return i;
  }

  private readScalar(s: string, i: number): number {
    const n = s.length;
    const start = i;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === COMMA || c === CLOSE_BRACE || isSpace(c)) break;
      i++;
    }
    this.token += s.slice(start, i);
    if (this.token.length > MAX_TOKEN) throw new TraceTooLarge(`a top-level value of the trace is longer than ${MAX_TOKEN} characters`);
    if (i < n) {
      try {
        JSON.parse(this.token);
      } catch {
        this.fail(`a top-level value of the trace is not valid JSON: ${this.token.slice(0, 40)}`, i);
      }
      this.mode = Mode.afterValue;
    }
    return i;
  }
}
