/**
 * The one way a JSON text from outside (a webhook, a pixel, an API body, a stored raw
 * body) becomes a value. Plain `JSON.parse` is not enough at a public boundary:
 * - ids beyond JavaScript's safe integers (Shopify's 64-bit ids such as
 *   788032119674292922) would silently lose digits, so such numbers are kept exactly, as
 *   the string of digits the sender wrote;
 * - a body nested thousands of levels deep or with a huge number of members is cheap to
 *   send and expensive everywhere after (serialisers recurse), so depth and size are
 *   bounded before anything is parsed;
 * - PostgreSQL cannot store a NUL character or half of a surrogate pair in text or jsonb,
 *   so strings and keys are cleaned of them here instead of failing a statement later.
 */
export interface JsonLimits {
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Object members plus array items in the whole document. */
  maxMembers: number;
}

export const defaultJsonLimits: JsonLimits = { maxDepth: 64, maxMembers: 50_000 };

export type JsonTextProblem = 'malformed' | 'too_deep' | 'too_many_members';

export class JsonTextError extends Error {
  readonly problem: JsonTextProblem;
  constructor(problem: JsonTextProblem, message: string) {
    super(message);
    this.name = 'JsonTextError';
    this.problem = problem;
  }
}

/** Text PostgreSQL can store: no NUL characters, no lone surrogates. */
export function storableText(text: string): string {
  // eslint-disable-next-line no-control-regex
  const withoutNul = text.includes('\u0000') ? text.replace(/\u0000/g, '') : text;
  return withoutNul.isWellFormed() ? withoutNul : withoutNul.toWellFormed();
}

/** What one pass over the text found, beside its shape. */
interface TextScan {
  /** [start, end) of integer literals too large for a JavaScript number to hold exactly. */
  unsafeIntegers: Array<[number, number]>;
  /** A string holds an escape that decodes to NUL or to one half of a surrogate pair. */
  unstorableEscapes: boolean;
  /**
   * A number literal that JSON.stringify would not write back as sent once parsed (1.50,
   * 1e3, -0, an unsafe integer): only such a text needs the slow reviver to keep digits.
   */
  inexactNumbers: boolean;
}

function isDigit(code: number): boolean {
  return code >= 48 /* 0 */ && code <= 57 /* 9 */;
}

/**
 * Checks nesting and size in one pass over the text, so a hostile body is refused before
 * the parser builds anything from it; on the way it notes what plain JSON.parse would get
 * wrong (unsafe integers, unstorable escapes), so that a body with neither is parsed by
 * JSON.parse alone: a reviver that asks for each literal's source costs several times more.
 */
function scanText(text: string, limits: JsonLimits): TextScan {
  let depth = 0;
  let members = 0;
  // Where the next backslash is (Infinity: none left), found once and again only once
  // passed: strings are most of a body, and are skipped to their closing quote by
  // indexOf instead of character by character.
  let nextBackslash = -1;
  const scan: TextScan = { unsafeIntegers: [], unstorableEscapes: false, inexactNumbers: false };
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 34 /* " */) {
      let cursor = index + 1;
      for (;;) {
        const quote = text.indexOf('"', cursor);
        // Unterminated: malformed, which JSON.parse reports.
        if (quote === -1) return scan;
        if (nextBackslash < cursor) {
          const found = text.indexOf('\\', cursor);
          nextBackslash = found === -1 ? Infinity : found;
        }
        if (nextBackslash > quote) {
          index = quote;
          break;
        }
        // \u0000 decodes to NUL; \uD800-\uDFFF may decode to a lone surrogate. Both are
        // rare, so any of them sends the text the careful way.
        if (text.charCodeAt(nextBackslash + 1) === 117 /* u */) {
          const hex = text.slice(nextBackslash + 2, nextBackslash + 6).toLowerCase();
          if (hex === '0000' || (hex[0] === 'd' && '89abcdef'.includes(hex[1] ?? 'x'))) scan.unstorableEscapes = true;
        }
        // The escaped character (a quote, say) is not the string's end.
        cursor = nextBackslash + 2;
      }
      continue;
    }
    if (code === 123 /* { */ || code === 91 /* [ */) {
      depth += 1;
      members += 1;
      if (depth > limits.maxDepth) throw new JsonTextError('too_deep', `JSON nested deeper than ${limits.maxDepth} levels`);
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth -= 1;
    else if (code === 44 /* , */) members += 1;
    else if (isDigit(code) || code === 45 /* - */) {
      // A number literal: only an integer of 16 characters or more can be beyond 2^53.
      // The whole literal is consumed, fraction and exponent too, so that the digits after
      // a decimal point are never taken for an integer of their own.
      const start = index;
      let end = index + 1;
      while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
      const integerEnd = end;
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end += 1;
      if (end === integerEnd) {
        if (end - start >= 16 && !Number.isSafeInteger(Number(text.slice(start, end)))) {
          scan.unsafeIntegers.push([start, end]);
          scan.inexactNumbers = true;
        } else if (end - start === 2 && code === 45 && text.charCodeAt(start + 1) === 48 /* -0 */) scan.inexactNumbers = true;
      } else if (!scan.inexactNumbers) {
        const literal = text.slice(start, end);
        if (String(Number(literal)) !== literal) scan.inexactNumbers = true;
      }
      index = end - 1;
    }
    if (members > limits.maxMembers) throw new JsonTextError('too_many_members', `JSON with more than ${limits.maxMembers} members`);
  }
  return scan;
}

/** The text with each unsafe integer literal written as a string of its digits. */
function quoteUnsafeIntegers(text: string, ranges: Array<[number, number]>): string {
  let quoted = '';
  let from = 0;
  for (const [start, end] of ranges) {
    quoted += `${text.slice(from, start)}"${text.slice(start, end)}"`;
    from = end;
  }
  return quoted + text.slice(from);
}

/** Keys and strings cleaned of what PostgreSQL cannot store, throughout a parsed value. */
function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, member]) => [storableText(key), storableValue(member)]));
  }
  return value;
}

/** Parses JSON text from outside; throws JsonTextError when it is malformed or out of bounds. */
export function parseJsonText(text: string, limits: JsonLimits = defaultJsonLimits): unknown {
  return parseJsonTextBothWays(text, limits).value;
}

/** A JSON text parsed once, for reading and for writing back. */
export interface ParsedJsonText {
  /** As `parseJsonText` gives it. */
  value: unknown;
  /** As `parseJsonTextKeepingNumbers` gives it: `value` itself when that writes back the same. */
  exact(): unknown;
}

/**
 * One scan and, for most texts, one JSON.parse for both uses of a body: reading it, and
 * storing it with some members taken out (intake-details.ts), which parsing it twice made
 * a tenth of the intake's time. Throws JsonTextError as `parseJsonText` does.
 */
export function parseJsonTextBothWays(text: string, limits: JsonLimits = defaultJsonLimits): ParsedJsonText {
  const scan = scanText(text, limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JsonTextError('malformed', (error as Error).message);
  }
  const asParsed = value;
  // Well-formed, so the scan's literals are real numbers: parsed again with them quoted,
  // their digits stay exact.
  if (scan.unsafeIntegers.length > 0) value = JSON.parse(quoteUnsafeIntegers(text, scan.unsafeIntegers));
  // Raw lone surrogates come in as characters, not escapes: the well-formed check finds them.
  if (scan.unstorableEscapes || !text.isWellFormed()) value = storableValue(value);
  return { value, exact: () => (scan.inexactNumbers ? parseKeepingNumbers(text) : asParsed) };
}

interface JsonWithRawText {
  parse(text: string, reviver: (key: string, value: unknown, context: { source?: string }) => unknown): unknown;
  rawJSON(text: string): unknown;
  isRawJSON(value: unknown): boolean;
}
const jsonWithRawText = JSON as unknown as JsonWithRawText;

/** True for a number parsed by `parseJsonTextKeepingNumbers` that must be written back as sent. */
export function isRawJsonNumber(value: unknown): boolean {
  return jsonWithRawText.isRawJSON(value);
}

/**
 * Parses JSON text from outside for a value that is written back as JSON (a stored body
 * with some members taken out): JSON.stringify of the result writes every number exactly
 * as the sender did (a 64-bit id, 1.50). Such numbers come back as raw JSON objects
 * (`isRawJsonNumber`), every other number as a number. Most texts have none, and are
 * parsed by JSON.parse alone: a reviver that asks for each literal's source costs several
 * times more. Bounded like `parseJsonText`; throws JsonTextError.
 */
export function parseJsonTextKeepingNumbers(text: string, limits: JsonLimits = defaultJsonLimits): unknown {
  const scan = scanText(text, limits);
  try {
    return scan.inexactNumbers ? parseKeepingNumbers(text) : JSON.parse(text);
  } catch (error) {
    throw new JsonTextError('malformed', (error as Error).message);
  }
}

/** The slow way, for a text whose numbers JSON.parse would not write back as sent. */
function parseKeepingNumbers(text: string): unknown {
  return jsonWithRawText.parse(text, (_key, value, context) =>
    typeof value === 'number' && context.source !== undefined && String(value) !== context.source ? jsonWithRawText.rawJSON(context.source) : value,
  );
}
