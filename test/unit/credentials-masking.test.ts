import { describe, expect, it } from 'vitest';
import { isUnchangedMask, maskSecret } from '../../src/server/platform/credential-masking.ts';

describe('masking for display (docs/product/specification.md §3)', () => {
  it('gives nothing for an empty value, so the screen shows "Not set"', () => {
    expect(maskSecret('')).toBeNull();
    expect(maskSecret(null)).toBeNull();
    expect(maskSecret(undefined)).toBeNull();
  });

  it('turns values of 8 characters or fewer into asterisks only', () => {
    expect(maskSecret('a')).toBe('*');
    expect(maskSecret('abcdefgh')).toBe('********');
  });

  it('shows the first 4 and last 4 characters of longer values, asterisks between', () => {
    expect(maskSecret('abcdefghi')).toBe('abcd*fghi');
    expect(maskSecret('sk-proj-1234567890abcdef')).toBe('sk-p****************cdef');
    expect(maskSecret('pk_0123456789abcdef0123456789abcdef00')).toHaveLength(37);
  });

  it('recognises an unchanged masked value, and nothing else, as the stored one', () => {
    const stored = 'pk_live_0123456789';
    expect(isUnchangedMask(maskSecret(stored)!, stored)).toBe(true);
    expect(isUnchangedMask(stored, stored)).toBe(false);
    expect(isUnchangedMask('pk_l**********6789', 'pk_other_0123456789')).toBe(false);
    expect(isUnchangedMask('********', null)).toBe(false);
  });
});
