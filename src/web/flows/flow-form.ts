import { z } from 'zod';
import {
  assistantsSchema,
  dailyBudgetUsdSchema,
  dailyGenerationCapSchema,
  klaviyoEventNameSchema,
  placeholderProblemsOf,
  reuseWindowHoursSchema,
  shopperCooldownHoursSchema,
  type Flow,
  type UpdateFlowInput,
} from '../../shared/flows/flow-schemas.ts';
import { flowValidationMessages as m } from '../../shared/flows/flow-messages.ts';
import { MAX_WAIT_MINUTES, splitWait, waitToMinutes, waitUnits } from '../../shared/flows/flow-wait.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';

export const emptyAssistant = { name: '', klaviyo_property: '', prompt_template: '', model: '', instructions: '' };

/**
 * A whole number typed into a text box, judged by the API's own schema so the form shows
 * the server's messages: blanks and fractions are "not a whole number", the rest its range.
 */
function typedWholeNumber(schema: z.ZodNumber, notWhole: string) {
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

/** The API's rules (shared schemas, same messages) plus the wait and the caps as the form holds them. */
export function flowFormSchema(hasWait: boolean, flowType: FlowType) {
  return z
    .object({
      isActive: z.boolean(),
      assistants: assistantsSchema,
      waitAmount: z.string(),
      waitUnit: z.enum(waitUnits),
      klaviyoEventName: klaviyoEventNameSchema,
      shopperCooldownHours: typedWholeNumber(shopperCooldownHoursSchema, m.shopperCooldownWholeNumber),
      dailyGenerationCap: typedWholeNumber(dailyGenerationCapSchema, m.dailyGenerationCapWholeNumber),
      useFlexTier: z.boolean(),
      reuseWindowHours: typedWholeNumber(reuseWindowHoursSchema, m.reuseWindowWholeNumber),
      dailyBudgetUsd: typedBudget,
      overBudget: z.enum(['wait', 'skip']),
    })
    .superRefine((values, context) => {
      for (const problem of placeholderProblemsOf(flowType, values.assistants)) {
        context.addIssue({ code: 'custom', path: ['assistants', problem.index, 'prompt_template'], message: problem.message });
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
  };
}

/** Where a server field error belongs in the form (the API names the wait in minutes). */
export function formFieldFor(apiField: string): string {
  return apiField === 'waitMinutes' ? 'waitAmount' : apiField;
}
