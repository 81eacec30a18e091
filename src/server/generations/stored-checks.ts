import { z } from 'zod';
import { textChecksRecordSchema, type TextChecksRecord, type TextCheckVerdict } from '../../shared/text-checks/text-check-schemas.ts';
import type { TextCheckName } from '../../shared/text-checks/text-check-messages.ts';

/**
 * How a text's checks are stored in `event_generations.checks`
 * (docs/decisions/0057-compact-stored-checks.md). Nearly every text carries the same nine
 * verdicts, and spelled out as a JSON object they were a third of the row: 297 bytes of
 * 917. Stored, the verdicts are one letter per check in the fixed order below, and an
 * empty list of refused texts is left out: the same record in about 60 bytes. Records
 * stored before this (verdicts as an object, `rejected` always present) still read.
 *
 * The order is part of the stored data: never reorder it or remove a name; a new check
 * goes at the end (records stored before it read it as not recorded).
 */
export const storedVerdictOrder: readonly TextCheckName[] = [
  'amounts',
  'discount_codes',
  'links',
  'length',
  'cut_off',
  'banned_phrases',
  'products',
  'language',
  'moderation',
];

const letterOf: Record<TextCheckVerdict, string> = { passed: 'p', failed: 'f', not_run: 'n' };
const verdictOf: Record<string, TextCheckVerdict> = { p: 'passed', f: 'failed', n: 'not_run' };
/** A check with no verdict in the record (it did not exist yet, or was not run at that stage). */
const NO_VERDICT = '-';

const storedChecksSchema = z.object({
  stage: textChecksRecordSchema.shape.stage,
  rejected: textChecksRecordSchema.shape.rejected.optional(),
  delivered: textChecksRecordSchema.shape.delivered.optional(),
  // One letter a check in `storedVerdictOrder`; an object in records stored before.
  verdicts: z.union([z.string().regex(/^[pfn-]*$/), textChecksRecordSchema.shape.verdicts]),
});

/** The stored form of a record (what `toStoredChecks` writes is what `fromStoredChecks` reads back). */
export function toStoredChecks(record: TextChecksRecord): Record<string, unknown> {
  const letters = storedVerdictOrder.map((check) => {
    const verdict = record.verdicts[check];
    return verdict === undefined ? NO_VERDICT : letterOf[verdict];
  });
  while (letters.at(-1) === NO_VERDICT) letters.pop();
  return {
    stage: record.stage,
    ...(record.rejected.length > 0 ? { rejected: record.rejected } : {}),
    ...(record.delivered === null ? {} : { delivered: record.delivered }),
    verdicts: letters.join(''),
  };
}

/** A stored record, in either form, as the checks made it. */
export function fromStoredChecks(stored: unknown): TextChecksRecord {
  const parsed = storedChecksSchema.parse(stored);
  const verdicts: TextChecksRecord['verdicts'] = {};
  if (typeof parsed.verdicts === 'string') {
    [...parsed.verdicts].forEach((letter, index) => {
      const check = storedVerdictOrder[index];
      if (check && letter !== NO_VERDICT) verdicts[check] = verdictOf[letter];
    });
  } else {
    Object.assign(verdicts, parsed.verdicts);
  }
  return textChecksRecordSchema.parse({ stage: parsed.stage, rejected: parsed.rejected ?? [], delivered: parsed.delivered ?? null, verdicts });
}
