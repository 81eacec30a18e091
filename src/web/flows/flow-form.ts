import type { z } from 'zod';
import type { Flow, UpdateFlowInput } from '../../shared/flows/flow-schemas.ts';
import { linesOf } from '../../shared/flows/text-rules.ts';
import { splitWait, waitToMinutes } from '../../shared/flows/flow-wait.ts';
import type { flowFormSchema } from './flow-form-checks.ts';

/*
 * The configuration form's values and how they become the API's, with no zod: the fields
 * render and fill in without it. The checks (flowFormSchema) are in flow-form-checks.ts,
 * fetched when the form is first used (flow-config-form.tsx).
 */

export const emptyAssistant = { name: '', klaviyo_property: '', prompt_template: '', model: '', instructions: '', fallback_text: '', max_length: '' };

/**
 * Wanted in textRuleMessages: a refused line of a list, named, so the owner finds it among
 * twenty (the schema's own message says what is wrong with it).
 */
export const listLineProblem = (line: string, problem: string) => `"${line}": ${problem}`;

/**
 * The most characters of an assistant's text as typed: blank is the default (null); what
 * is not a number reaches the API's schema as NaN, so the form shows its message.
 */
export function typedOptionalNumber(typed: string): number | null {
  const text = typed.trim();
  if (text === '') return null;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
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
