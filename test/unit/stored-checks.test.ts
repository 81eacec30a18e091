import { describe, expect, it } from 'vitest';
import { textCheckNames } from '../../src/shared/text-checks/text-check-messages.ts';
import type { TextChecksRecord } from '../../src/shared/text-checks/text-check-schemas.ts';
import { fromStoredChecks, storedVerdictOrder, toStoredChecks } from '../../src/server/generations/stored-checks.ts';

/** The compact stored form of a text's checks (docs/decisions/0057-compact-stored-checks.md). */
const allPassed: TextChecksRecord = {
  stage: 'done',
  rejected: [],
  delivered: 'written',
  verdicts: Object.fromEntries(Object.keys(textCheckNames).map((check) => [check, 'passed'])),
};

describe('stored checks', () => {
  it('spell every check, so a new one has its place in the stored order', () => {
    expect([...storedVerdictOrder].sort()).toEqual(Object.keys(textCheckNames).sort());
    expect(new Set(storedVerdictOrder).size).toBe(storedVerdictOrder.length);
  });

  it('read back what was stored, for every shape the checks make', () => {
    const records: TextChecksRecord[] = [
      allPassed,
      { ...allPassed, verdicts: { ...allPassed.verdicts, language: 'not_run', moderation: 'failed' } },
      { stage: 'rewrite', rejected: [{ text: 'Buy now at 50% off', failures: [{ check: 'amounts', found: '50%', reason: 'It names 50%.' }] }], delivered: null, verdicts: { amounts: 'failed' } },
      { stage: 'recheck', rejected: [], delivered: null, verdicts: {} },
      { stage: 'done', rejected: [], delivered: 'fallback', verdicts: { links: 'not_run', moderation: 'passed' } },
    ];
    for (const record of records) expect(fromStoredChecks(JSON.parse(JSON.stringify(toStoredChecks(record))))).toEqual(record);
  });

  it('store the usual record in a fraction of its spelled-out size', () => {
    const stored = JSON.stringify(toStoredChecks(allPassed));
    expect(stored).toBe('{"stage":"done","delivered":"written","verdicts":"ppppppppp"}');
    expect(stored.length * 3).toBeLessThan(JSON.stringify(allPassed).length);
  });

  it('read records stored in the spelled-out form before', () => {
    expect(fromStoredChecks(JSON.parse(JSON.stringify(allPassed)))).toEqual(allPassed);
    expect(fromStoredChecks({ stage: 'done', rejected: [], delivered: 'edited', verdicts: { links: 'failed' } })).toEqual({ stage: 'done', rejected: [], delivered: 'edited', verdicts: { links: 'failed' } });
  });

  it('refuse what no version wrote', () => {
    expect(() => fromStoredChecks({ stage: 'done', verdicts: 'pxp' })).toThrow();
    expect(() => fromStoredChecks({ stage: 'finished', verdicts: '' })).toThrow();
  });
});
