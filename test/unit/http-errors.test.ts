import { describe, expect, it } from 'vitest';
import { HttpError, isRefused, refused, unlessRefused } from '../../src/server/platform/http-errors.ts';
import { apiErrorCodes, apiErrorStatuses, isApiErrorCode } from '../../src/shared/api/error-codes.ts';

describe('the shared error codes', () => {
  it('name every code once, by itself', () => {
    for (const [name, code] of Object.entries(apiErrorCodes)) expect(code).toBe(name);
    expect(Object.keys(apiErrorCodes).sort()).toEqual(Object.keys(apiErrorStatuses).sort());
  });

  it('tell a code of the contract from anything else an answer may carry', () => {
    expect(isApiErrorCode('bad_signature')).toBe(true);
    expect(isApiErrorCode('invalid_signature')).toBe(false);
    expect(isApiErrorCode('toString')).toBe(false);
  });
});

describe('HttpError', () => {
  it('takes its status from the shared table', () => {
    const error = new HttpError(apiErrorCodes.flow_not_found, 'gone');
    expect(error.statusCode).toBe(404);
    expect(error.toBody()).toEqual({ error: 'flow_not_found', message: 'gone' });
  });

  it('takes the status it is given only for codes whose status depends on the case', () => {
    expect(new HttpError(apiErrorCodes.too_many_members, 'wide', { status: 413 }).statusCode).toBe(413);
    expect(new HttpError(apiErrorCodes.too_deep, 'deep', { status: 413 }).statusCode).toBe(400);
  });

  it('accepts no code outside the table', () => {
    // @ts-expect-error: a code the table does not hold does not compile
    expect(new HttpError('invalid_signature', 'x').code).toBe('invalid_signature');
  });
});

describe('a refusal returned by domain code', () => {
  it('becomes the answer its code and details say', () => {
    const refusal = refused(apiErrorCodes.validation, 'bad wait', { fieldErrors: { waitMinutes: 'bad wait' } });
    expect(isRefused(refusal)).toBe(true);
    let thrown: unknown;
    try {
      unlessRefused(refusal);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect((thrown as HttpError).statusCode).toBe(400);
    expect((thrown as HttpError).toBody()).toEqual({ error: 'validation', message: 'bad wait', fieldErrors: { waitMinutes: 'bad wait' } });
  });

  it('passes a value that is no refusal through unchanged', () => {
    const flow = { ok: true, id: 'f' };
    expect(unlessRefused(flow)).toBe(flow);
    expect(isRefused({ id: 'f' })).toBe(false);
  });

  it('keeps the status of a variable code', () => {
    expect(HttpError.of(refused(apiErrorCodes.too_many_members, 'wide', { status: 400 })).statusCode).toBe(400);
  });
});
