import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRawJsonNumber, JsonTextError, parseJsonText, parseJsonTextBothWays, parseJsonTextKeepingNumbers, storableText } from '../../src/server/platform/json-text.ts';

// parseJsonText takes JSON.parse's fast path unless the text holds an unsafe integer or an
// escape PostgreSQL cannot store; these pin down that both paths give the same answers.
describe('parseJsonText', () => {
  it('gives what JSON.parse gives for any JSON, with unsafe integers as their digits and text cleaned of what PostgreSQL cannot store', () => {
    const clean = (value: unknown): unknown =>
      typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(JSON.stringify(value))
        ? JSON.stringify(value)
        : typeof value === 'string'
        ? storableText(value)
        : Array.isArray(value)
          ? value.map(clean)
          : value !== null && typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([key, member]) => [storableText(key), clean(member)]))
            : value;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        expect(parseJsonText(text)).toEqual(clean(JSON.parse(text)));
      }),
      { numRuns: 1_000 },
    );
  });

  it('keeps integers beyond 2^53 digit for digit, as strings, and leaves safe and decimal numbers as numbers', () => {
    const text = '{"id": 788032119674292922, "neg": -9007199254740993, "safe": 9007199254740991, "big": 1234567890123456.5, "exp": 12345678901234567e2, "in": "788032119674292922", "list": [18446744073709551615, 1]}';
    expect(parseJsonText(text)).toEqual({
      id: '788032119674292922',
      neg: '-9007199254740993',
      safe: 9007199254740991,
      big: 1234567890123456.5,
      exp: Number("12345678901234567e2"),
      in: '788032119674292922',
      list: ['18446744073709551615', 1],
    });
  });

  it('removes NUL and lone surrogates from keys and strings, whether escaped or raw', () => {
    expect(parseJsonText('{"a\\u0000b": "x\\u0000y", "s": "\\ud800z", "ok": "\\ud83d\\ude00"}')).toEqual({ ab: 'xy', s: '\ufffdz', ok: '😀' });
    expect(parseJsonText(`{"raw": "a${'\ud800'}b"}`)).toEqual({ raw: 'a\ufffdb' });
  });

  it('reads strings to their real end, escaped quotes and backslashes included, counting nothing inside them', () => {
    // Brackets and commas inside strings are neither nesting nor members; an escaped quote
    // does not end its string; a NUL escape in a later string is still found.
    const inside = `"${'[{,'.repeat(40)}"`;
    const text = `{"a": "x\\"y\\\\", "b": ${inside}, "c": "plain", "d": "late\\u0000", "e": 788032119674292922, "f": "\\\\"}`;
    expect(parseJsonText(text, { maxDepth: 2, maxMembers: 6 })).toEqual({ a: 'x"y\\', b: '[{,'.repeat(40), c: 'plain', d: 'late', e: '788032119674292922', f: '\\' });
    expect(() => parseJsonText('{"a": "x\\"], [[["')).toThrow(JsonTextError);
  });

  it('refuses malformed text, including a malformed number that quoting would have made a string', () => {
    expect(() => parseJsonText('{"a": 0012345678901234567890}')).toThrow(JsonTextError);
    expect(() => parseJsonText('{"a": 1')).toThrow(JsonTextError);
    expect(() => parseJsonText('[' .repeat(100) + ']'.repeat(100))).toThrow(/deeper/);
  });
});

// The stored body of an event with members taken out is written back with JSON.stringify;
// the sender's numbers must come back exactly as sent, by the fast path and the slow one.
describe('parseJsonTextKeepingNumbers', () => {
  it('writes back any JSON number for number as it was written', () => {
    const literal = fc.oneof(
      fc.integer().map(String),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom('1.50', '1e3', '-0', '0.0', '2E-7', '10.10', '-0.5'),
    );
    fc.assert(
      fc.property(fc.array(literal, { maxLength: 8 }), (literals) => {
        const text = `{"values":[${literals.join(',')}],"name":"x"}`;
        expect(JSON.stringify(parseJsonTextKeepingNumbers(text))).toBe(text);
        // Parsed once for both uses, the intake's way, it reads and writes back the same.
        const both = parseJsonTextBothWays(text);
        expect(JSON.stringify(both.exact())).toBe(text);
        expect(both.value).toEqual(parseJsonText(text));
      }),
      { numRuns: 1_000 },
    );
  });

  it('gives plain numbers where the literal survives parsing, and marks only the others', () => {
    const parsed = parseJsonTextKeepingNumbers('{"a": 14, "b": 1.5, "c": 1.50, "d": 788032119674292922}') as Record<string, unknown>;
    expect(parsed.a).toBe(14);
    expect(parsed.b).toBe(1.5);
    expect(isRawJsonNumber(parsed.c)).toBe(true);
    expect(isRawJsonNumber(parsed.d)).toBe(true);
  });

  it('is bounded like parseJsonText and refuses malformed text', () => {
    expect(() => parseJsonTextKeepingNumbers('['.repeat(65) + ']'.repeat(65))).toThrow(JsonTextError);
    expect(() => parseJsonTextKeepingNumbers('{"a": 1.50')).toThrow(JsonTextError);
  });
});
