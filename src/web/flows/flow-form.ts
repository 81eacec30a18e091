import { z } from 'zod';
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
  type Flow,
  type UpdateFlowInput,
} from '../../shared/flows/flow-schemas.ts';
import { flowValidationMessages as m } from '../../shared/flows/flow-messages.ts';
import { linesOf, onFailedChecksSchema, textLanguageSettingSchema, textRulesSchema } from '../../shared/flows/text-rules-schemas.ts';
import { MAX_WAIT_MINUTES, splitWait, waitToMinutes, waitUnits } from '../../shared/flows/flow-wait.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { MAX_RECOMMENDATIONS } from '../../shared/flows/recommendation-schemas.ts';

export const emptyAssistant = { name: '', klaviyo_property: '', prompt_template: '', model: '', instructions: '', fallback_text: '', max_length: '' };

/**
 * Wanted in textRuleMessages: a refused line of a list, named, so the owner finds it among
 * twenty (the schema's own message says what is wrong with it).
 */
export const listLineProblem = (line: string, problem: string) => `"${line}": ${problem}`;

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
 * The most characters of an assistant's text as typed: blank is the default (null); what
 * is not a number reaches the API's schema as NaN, so the form shows its message.
 */
function typedOptionalNumber(typed: string): number | null {
  const text = typed.trim();
  if (text === '') return null;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
}

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

/** What the configuration form edits: text inputs hold strings, the wait is amount + unit. */
export type FlowFormValues = z.input<ReturnType<typeof flowFormSchema>>;
/** The same after validation: trimmed, blanks as null. */
export type FlowFormOutput = z.output<ReturnType<typeof flowFormSchema>>;

export function toFormValues(flow: Flow): FlowFormValues {
  const wait = splitWait(flow.waitMinutes ?? 0);
  return {
    isActive: flow.isActive,
    assistants: flow.assistants.map((assistant) => ({
      name: assistant.name,
      klaviyo_property: assistant.klaviyo_property,
      prompt_template: assistant.prompt_template,
      model: assistant.model ?? '',
      instructions: assistant.instructions ?? '',
      fallback_text: assistant.fallback_text ?? '',
      max_length: assistant.max_length === null ? '' : String(assistant.max_length),
    })),
    waitAmount: String(wait.amount),
    waitUnit: wait.unit,
    klaviyoEventName: flow.klaviyoEventName ?? '',
    shopperCooldownHours: String(flow.shopperCooldownHours),
    dailyGenerationCap: String(flow.dailyGenerationCap),
    useFlexTier: flow.useFlexTier,
    reuseWindowHours: String(flow.reuseWindowHours),
    dailyBudgetUsd: flow.dailyBudgetUsd === null ? '' : flow.dailyBudgetUsd.toFixed(2),
    overBudget: flow.overBudget,
    textRules: {
      discountCodes: flow.textRules.discountCodes.join('\n'),
      offersCoupon: flow.textRules.offersCoupon,
      bannedPhrases: flow.textRules.bannedPhrases.join('\n'),
      language: flow.textRules.language,
      onFailedChecks: flow.textRules.onFailedChecks,
      requireApproval: flow.textRules.requireApproval,
      autoApproveAfter: flow.textRules.autoApproveAfter === null ? '' : String(flow.textRules.autoApproveAfter),
    },
    recommendations: {
      intent: flow.recommendations.intent,
      count: String(flow.recommendations.count),
      profileProperty: flow.recommendations.profileProperty ?? '',
    },
  };
}

export function toUpdateInput(values: FlowFormOutput, hasWait: boolean): UpdateFlowInput {
  return {
    isActive: values.isActive,
    assistants: values.assistants,
    ...(hasWait ? { waitMinutes: waitToMinutes(Number(values.waitAmount.trim()), values.waitUnit) } : {}),
    klaviyoEventName: values.klaviyoEventName,
    shopperCooldownHours: Number(values.shopperCooldownHours.trim()),
    dailyGenerationCap: Number(values.dailyGenerationCap.trim()),
    useFlexTier: values.useFlexTier,
    reuseWindowHours: Number(values.reuseWindowHours.trim()),
    dailyBudgetUsd: values.dailyBudgetUsd.trim() === '' ? null : Number(values.dailyBudgetUsd.trim().replace(/^\$/, '')),
    overBudget: values.overBudget,
    textRules: {
      discountCodes: linesOf(values.textRules.discountCodes),
      offersCoupon: values.textRules.offersCoupon,
      bannedPhrases: linesOf(values.textRules.bannedPhrases),
      language: values.textRules.language,
      onFailedChecks: values.textRules.onFailedChecks,
      requireApproval: values.textRules.requireApproval,
      autoApproveAfter: typedOptionalNumber(values.textRules.autoApproveAfter),
    },
    recommendations: {
      intent: values.recommendations.intent,
      count: Number(values.recommendations.count.trim()),
      profileProperty: values.recommendations.profileProperty,
    },
  };
}

/** The text rules' lists, which the API names line by line and the form holds as one text. */
const listFields = ['discountCodes', 'bannedPhrases'] as const;

/**
 * Where a server field error belongs in the form, and what it says there: the API names
 * the wait in minutes, and a refused line of a list by its index (`textRules.discountCodes.3`),
 * which the form shows under the list, naming the line as it sent it.
 */
export function formErrorFor(apiField: string, message: string, sent: UpdateFlowInput): { field: string; message: string } {
  if (apiField === 'waitMinutes') return { field: 'waitAmount', message };
  for (const list of listFields) {
    const match = new RegExp(`^textRules\\.${list}\\.(\\d+)$`).exec(apiField);
    if (!match) continue;
    const line = sent.textRules?.[list]?.[Number(match[1])];
    return { field: `textRules.${list}`, message: line === undefined ? message : listLineProblem(line, message) };
  }
  return { field: apiField, message };
}
