import { describe, expect, it } from 'vitest';
import { apiErrorSchema } from '../../src/shared/api-error.ts';
import { parseApiErrorBody } from '../../src/web/app/api-error-body.ts';

/**
 * The browser reads error answers without zod (src/web/app/api-error-body.ts); the
 * contract stays `apiErrorSchema`. Both must accept and reject the same bodies, and keep
 * the same fields of what they accept.
 */
const bodies: Array<[label: string, text: string]> = [
  ['the smallest valid body', '{"error":"not_found","message":"Not found."}'],
  ['field errors', '{"error":"validation","message":"Check the fields","fieldErrors":{"email":"Enter a valid email address","password":"Required"}}'],
  ['empty field errors', '{"error":"validation","message":"x","fieldErrors":{}}'],
  ['a lockout with its wait', '{"error":"locked_out","message":"Too many attempts","retryAfterSeconds":300}'],
  ['a fractional and a negative wait', '{"error":"e","message":"m","retryAfterSeconds":-1.5}'],
  ['a zero wait', '{"error":"e","message":"m","retryAfterSeconds":0}'],
  ['every field', '{"error":"e","message":"m","fieldErrors":{"a":""},"retryAfterSeconds":1e3}'],
  ['extra fields, left out of the result', '{"error":"e","message":"m","detail":{"x":1},"statusCode":400}'],
  ['empty strings', '{"error":"","message":""}'],
  ['no message', '{"error":"e"}'],
  ['no error code', '{"message":"m"}'],
  ['a numeric error code', '{"error":500,"message":"m"}'],
  ['a null message', '{"error":"e","message":null}'],
  ['null field errors', '{"error":"e","message":"m","fieldErrors":null}'],
  ['field errors as an array', '{"error":"e","message":"m","fieldErrors":["a"]}'],
  ['field errors as a string', '{"error":"e","message":"m","fieldErrors":"a"}'],
  ['a field error that is not a string', '{"error":"e","message":"m","fieldErrors":{"a":"x","b":1}}'],
  ['a nested field error', '{"error":"e","message":"m","fieldErrors":{"a":{"b":"c"}}}'],
  ['a wait as a string', '{"error":"e","message":"m","retryAfterSeconds":"30"}'],
  ['a null wait', '{"error":"e","message":"m","retryAfterSeconds":null}'],
  ['an array', '[{"error":"e","message":"m"}]'],
  ['a string', '"error"'],
  ['a number', '404'],
  ['null', 'null'],
  ['true', 'true'],
  ['an empty object', '{}'],
];

describe('reading an API error body in the browser', () => {
  it.each(bodies)('gives the shared schema\'s answer for %s', (_label, text) => {
    const json: unknown = JSON.parse(text);
    const shared = apiErrorSchema.safeParse(json);
    expect(parseApiErrorBody(json)).toStrictEqual(shared.success ? shared.data : null);
  });

  it('gives the shared schema\'s answer for a body that is not there', () => {
    expect(apiErrorSchema.safeParse(undefined).success).toBe(false);
    expect(parseApiErrorBody(undefined)).toBeNull();
  });
});
