import { describe, expect, it } from 'vitest';
import { formatBytes, formatWait } from '../../src/shared/dashboard/dashboard-messages.ts';
import { isProcessingLate, PROCESSING_LATE_AFTER_SECONDS } from '../../src/shared/dashboard/dashboard-processing.ts';

describe("the dashboard's processing figures", () => {
  it('says how long the oldest event has waited in the largest units that fit', () => {
    expect(formatWait(0)).toBe('0 s');
    expect(formatWait(59.9)).toBe('59 s');
    expect(formatWait(60)).toBe('1 min');
    expect(formatWait(3599)).toBe('59 min');
    expect(formatWait(3600)).toBe('1 h');
    expect(formatWait(3 * 3600 + 5 * 60 + 7)).toBe('3 h 5 min');
    expect(formatWait(2 * 86_400 + 4 * 3600)).toBe('2 d 4 h');
    expect(formatWait(86_400)).toBe('1 d');
  });

  it('gives sizes in bytes, KB, MB and GB', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(9_240_699)).toBe('8.8 MB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MB');
    expect(formatBytes(2.5 * 1024 ** 3)).toBe('2.5 GB');
  });

  it('is late only once the oldest has waited more than five minutes', () => {
    expect(PROCESSING_LATE_AFTER_SECONDS).toBe(300);
    expect(isProcessingLate({ oldestBehindSeconds: null })).toBe(false);
    expect(isProcessingLate({ oldestBehindSeconds: 300 })).toBe(false);
    expect(isProcessingLate({ oldestBehindSeconds: 301 })).toBe(true);
  });
});
