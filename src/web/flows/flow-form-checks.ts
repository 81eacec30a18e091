import { z } from 'zod';
import { zodResolver } from '@hookform/resolvers/zod';
import type { Resolver } from 'react-hook-form';
import {
  assistantsSchema,
  dailyBudgetUsdSchema,
  dailyGenerationCapSchema,
  klaviyoEventNameSchema,
  klaviyoPropertySchema,
  placeholderProblemsOf,
  recommendationSettingsSchema,
  reuseWindowHoursSchema,
  shopperCooldownHoursSchema,
} from '../../shared/flows/flow-schemas.ts';
import { flowValidationMessages as m } from '../../shared/flows/flow-messages.ts';
import { onFailedChecksSchema, textLanguageSettingSchema, textRulesSchema } from '../../shared/flows/text-rules-schemas.ts';
import { linesOf } from '../../shared/flows/text-rules.ts';
import { MAX_WAIT_MINUTES, waitToMinutes, waitUnits } from '../../shared/flows/flow-wait.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { MAX_RECOMMENDATIONS } from '../../shared/flows/recommendation-options.ts';
import { listLineProblem, typedOptionalNumber, type FlowFormOutput, type FlowFormValues } from './flow-form.ts';

/*
 * The configuration form's checks: the API's own schemas, with their messages, over the
 * values as the form holds them. In a chunk of their own with zod, fetched when the form
 * is first used (flow-config-form.tsx).
 */

/**
 * A whole number typed into a text box, judged by the API's own schema so the form shows
 * the server's messages: blanks and fractions are "not a whole number", the rest its range.
 */
function typedWholeNumber(schema: z.ZodType<number, number>, notWhole: string) {
  return z.string().superRefine((typed, context) => {
    const text = typed.trim();
    const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
    if (Number.isNaN(value)) {
      context.addIssue({ code: 'custom', message: notWhole });
      return;
    }
    const checked = schema.safeParse(value);
    if (!checked.success) context.addIssue({ code: 'custom', message: checked.error.issues[0]!.message });
  });
}

/** A dollar amount typed into a text box; blank means no budget. Judged by the API's schema. */
const typedBudget = z.string().superRefine((typed, context) => {
  const text = typed.trim().replace(/^\$/, '');
  if (text === '') return;
  const value = /^\d+(\.\d{1,2})?$/.test(text) ? Number(text) : Number.NaN;
  const checked = dailyBudgetUsdSchema.safeParse(Number.isNaN(value) ? 'not a number' : value);
  if (!checked.success) context.addIssue({ code: 'custom', message: checked.error.issues[0]!.message });
});

/**
 * The assistants as the form holds them (every field a string), judged by the API's own
 * schema once "Most characters" is a number: the same messages, the same cross-checks
 * (a fallback longer than the limit, a property written twice).
 */
const formAssistantsSchema = z
  .array(
    z.object({
      name: z.string(),
      klaviyo_property: z.string(),
      prompt_template: z.string(),
      model: z.string(),
      instructions: z.string(),
      fallback_text: z.string(),
      max_length: z.string(),
    }),
  )
  .transform((assistants): z.input<typeof assistantsSchema> => assistants.map((assistant) => ({ ...assistant, max_length: typedOptionalNumber(assistant.max_length) })))
  .pipe(assistantsSchema);

/**
 * A list typed one entry per line, judged by the API's schema for the list: a refused
 * line is named with the schema's message; a problem of the whole list (too many, one
 * listed twice) is the schema's message as it is.
 */
function typedLines(schema: z.ZodType<string[], unknown>) {
  return z.string().superRefine((typed, context) => {
    const lines = linesOf(typed);
    const checked = schema.safeParse(lines);
    if (checked.success) return;
    const issue = checked.error.issues[0]!;
    const line = typeof issue.path[0] === 'number' ? lines[issue.path[0]] : undefined;
    context.addIssue({ code: 'custom', message: line === undefined ? issue.message : listLineProblem(line, issue.message) });
  });
}

/** The text rules as the form holds them: the two lists as text, one entry per line. */
const formTextRulesSchema = z.object({
  discountCodes: typedLines(textRulesSchema.shape.discountCodes),
  offersCoupon: z.boolean(),
  bannedPhrases: typedLines(textRulesSchema.shape.bannedPhrases),
  language: textLanguageSettingSchema,
  onFailedChecks: onFailedChecksSchema,
  requireApproval: z.boolean(),
  /** Typed: blank is never; the rest the API's schema judges, with its message. */
  autoApproveAfter: z.string().superRefine((typed, context) => {
    const checked = textRulesSchema.shape.autoApproveAfter.safeParse(typedOptionalNumber(typed));
    if (!checked.success) context.addIssue({ code: 'custom', message: checked.error.issues[0]!.message });
  }),
});

/**
 * The recommendation settings as the form holds them: the count typed, the property blank
 * for "prompts only". Each part is judged by the API's schema, so the messages are its own.
 */
const formRecommendationsSchema = z.object({
  intent: recommendationSettingsSchema.shape.intent.unwrap(),
  count: typedWholeNumber(recommendationSettingsSchema.shape.count.unwrap(), m.recommendationCount(MAX_RECOMMENDATIONS)),
  profileProperty: z
    .string()
    .transform((typed) => (typed.trim() === '' ? null : typed))
    .pipe(klaviyoPropertySchema.nullable()),
});

/** The API's rules (shared schemas, same messages) plus the wait and the caps as the form holds them. */
export function flowFormSchema(hasWait: boolean, flowType: FlowType) {
  return z
    .object({
      isActive: z.boolean(),
      assistants: formAssistantsSchema,
      waitAmount: z.string(),
      waitUnit: z.enum(waitUnits),
      klaviyoEventName: klaviyoEventNameSchema,
      shopperCooldownHours: typedWholeNumber(shopperCooldownHoursSchema, m.shopperCooldownWholeNumber),
      dailyGenerationCap: typedWholeNumber(dailyGenerationCapSchema, m.dailyGenerationCapWholeNumber),
      useFlexTier: z.boolean(),
      reuseWindowHours: typedWholeNumber(reuseWindowHoursSchema, m.reuseWindowWholeNumber),
      dailyBudgetUsd: typedBudget,
      overBudget: z.enum(['wait', 'skip']),
      textRules: formTextRulesSchema,
      recommendations: formRecommendationsSchema,
    })
    .superRefine((values, context) => {
      // The API's own cross-check (updateFlowSchema), with its path and message: two writers of one property would overwrite each other.
      const property = values.recommendations.profileProperty;
      if (property && values.assistants.some((assistant) => assistant.klaviyo_property === property)) {
        context.addIssue({ code: 'custom', path: ['recommendations', 'profileProperty'], message: m.recommendationPropertyTaken(property) });
      }
      for (const problem of placeholderProblemsOf(flowType, values.assistants)) {
        context.addIssue({ code: 'custom', path: ['assistants', problem.index, problem.field], message: problem.message });
      }
      if (!hasWait) return;
      const amount = values.waitAmount.trim();
      if (!/^\d+$/.test(amount)) {
        context.addIssue({ code: 'custom', path: ['waitAmount'], message: amount.startsWith('-') ? m.waitRange : m.waitWholeNumber });
        return;
      }
      if (waitToMinutes(Number(amount), values.waitUnit) > MAX_WAIT_MINUTES) {
        context.addIssue({ code: 'custom', path: ['waitAmount'], message: m.waitRange });
      }
    });
}

/** The form's resolver for a flow: the checks above, as react-hook-form runs them. */
export function flowFormResolver(hasWait: boolean, flowType: FlowType): Resolver<FlowFormValues, unknown, FlowFormOutput> {
  return zodResolver(flowFormSchema(hasWait, flowType));
}
