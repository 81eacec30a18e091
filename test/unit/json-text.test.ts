import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTextError, parseJsonText, storableText } from '../../src/server/platform/json-text.ts';

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

  it('refuses malformed text, including a malformed number that quoting would have made a string', () => {
    expect(() => parseJsonText('{"a": 0012345678901234567890}')).toThrow(JsonTextError);
    expect(() => parseJsonText('{"a": 1')).toThrow(JsonTextError);
    expect(() => parseJsonText('[' .repeat(100) + ']'.repeat(100))).toThrow(/deeper/);
  });
});
