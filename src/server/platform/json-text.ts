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

/**
 * Checks nesting and size in one pass over the text (strings skipped), so a hostile body
 * is refused before the parser builds anything from it.
 */
function checkShape(text: string, limits: JsonLimits): void {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index += 1;
      else if (code === 34 /* " */) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 123 /* { */ || code === 91 /* [ */) {
      depth += 1;
      members += 1;
      if (depth > limits.maxDepth) throw new JsonTextError('too_deep', `JSON nested deeper than ${limits.maxDepth} levels`);
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth -= 1;
    else if (code === 44 /* , */) members += 1;
    if (members > limits.maxMembers) throw new JsonTextError('too_many_members', `JSON with more than ${limits.maxMembers} members`);
  }
}

const integerLiteral = /^-?\d+$/;

type ReviverContext = { source?: string } | undefined;

function revive(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === 'number') {
    // Node 22+ gives the literal's source text: a large integer is kept digit for digit.
    if (!Number.isSafeInteger(value) && context?.source !== undefined && integerLiteral.test(context.source)) return context.source;
    return value;
  }
  if (typeof value === 'string') return storableText(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (Object.keys(record).some((key) => storableText(key) !== key)) {
      return Object.fromEntries(Object.entries(record).map(([key, member]) => [storableText(key), member]));
    }
  }
  return value;
}

/** Parses JSON text from outside; throws JsonTextError when it is malformed or out of bounds. */
export function parseJsonText(text: string, limits: JsonLimits = defaultJsonLimits): unknown {
  checkShape(text, limits);
  try {
    return JSON.parse(text, revive as (this: unknown, key: string, value: unknown) => unknown);
  } catch (error) {
    throw new JsonTextError('malformed', (error as Error).message);
  }
}
