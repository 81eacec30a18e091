import { z } from 'zod';
import { textCheckNames, type TextCheckName } from './text-check-messages.ts';

/**
 * What the checks made of one assistant's text (docs/decisions/0040-texts-checked-before-delivery.md),
 * stored with it and shown in the event log: the texts refused and why, each check's verdict
 * on the text that went out, and what went out.
 */
export const textCheckNameSchema = z.enum(Object.keys(textCheckNames) as [TextCheckName, ...TextCheckName[]]);

export const textCheckFailureSchema = z.object({
  check: textCheckNameSchema,
  /** The part of the text that failed, as written. */
  found: z.string(),
  reason: z.string(),
});
export type TextCheckFailureRecord = z.infer<typeof textCheckFailureSchema>;

/** passed; failed; or not run, with why (no language known for the shopper, the text was the owner's own fallback). */
export const textCheckVerdictSchema = z.enum(['passed', 'failed', 'not_run']);
export type TextCheckVerdict = z.infer<typeof textCheckVerdictSchema>;

export const textChecksRecordSchema = z.object({
  /**
   * `rewrite`: the first text failed and is to be written again; `recheck`: the second
   * text is written and waits for its checks; `done`: `delivered` says what goes out.
   */
  stage: z.enum(['rewrite', 'recheck', 'done']),
  rejected: z.array(z.object({ text: z.string(), failures: z.array(textCheckFailureSchema) })),
  /**
   * written: the first text passed; rewritten: the second did; fallback: the owner's text;
   * nothing: the event sends nothing; edited: the owner changed it in the review list.
   */
  delivered: z.enum(['written', 'rewritten', 'fallback', 'nothing', 'edited']).nullable(),
  /** Each check's verdict on the text that goes out (on the last text refused when nothing does). */
  verdicts: z.partialRecord(textCheckNameSchema, textCheckVerdictSchema),
});
export type TextChecksRecord = z.infer<typeof textChecksRecordSchema>;
