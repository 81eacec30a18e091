import { z } from 'zod';
import { experimentPropertyNamesOfAllFlows, flowTypeDetails, type FlowType } from './flow-types.ts';
import { flowTypeSchema } from './flow-type-schemas.ts';
import { flowValidationMessages as m, vendorLimitMessages } from './flow-messages.ts';
import { flowPlaceholderTokens, placeholdersNotFilledIn, promptPlaceholderTokens, unknownPlaceholdersIn } from './prompt-placeholders.ts';
import { MAX_WAIT_MINUTES } from './flow-wait.ts';
import { DEFAULT_RECOMMENDATIONS, MAX_RECOMMENDATIONS, recommendationIntents } from './recommendation-options.ts';
import { textRulesSchema } from './text-rules-schemas.ts';
import { MAX_FALLBACK_TEXT_LENGTH, MAX_TEXT_LENGTH } from './text-rules.ts';
import { textRuleMessages } from './flow-messages.ts';
import {
  MAX_ASSISTANT_NAME_LENGTH,
  MAX_ASSISTANTS_PER_FLOW,
  MAX_DAILY_BUDGET_USD,
  MAX_DAILY_GENERATION_CAP,
  MAX_INSTRUCTIONS_LENGTH,
  MAX_KLAVIYO_EVENT_NAME_LENGTH,
  MAX_KLAVIYO_PROPERTY_LENGTH,
  MAX_MODEL_LENGTH,
  MAX_PROMPT_TEMPLATE_LENGTH,
  MAX_REUSE_WINDOW_HOURS,
  MAX_SHOPPER_COOLDOWN_HOURS,
  MIN_DAILY_GENERATION_CAP,
} from './flow-limits.ts';

/*
 * The contract between the flow pages and the flows API. The form validates with these
 * schemas before sending and the server validates again, so both show the same message.
 * Assistant fields keep their snake_case names (docs/product/specification.md §3; stored
 * so in `flows.assistants`); flow fields are camelCase like every other API field. The
 * limits they enforce are in flow-limits.ts.
 */
/**
 * Flowsmith's own rules for a property name (docs/decisions/0006-assistant-properties.md):
 * characters that need no quoting in Klaviyo's templates, and no leading `$`, which marks
 * the properties Klaviyo gives its own meaning (`$extra`, `$value` in its definition).
 */
const klaviyoPropertyCharacters = /^[A-Za-z0-9_ .-]*$/;
const modelName = /^[A-Za-z0-9._:-]*$/;
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f]/;

/** Optional free text: blank means "not set" and is stored as null. */
function optionalText(schema: z.ZodString) {
  return schema.nullish().transform((value) => (value ? value : null));
}

export const klaviyoPropertySchema = z
  .string()
  .trim()
  .min(1, m.klaviyoPropertyRequired)
  .max(MAX_KLAVIYO_PROPERTY_LENGTH, m.klaviyoPropertyTooLong(MAX_KLAVIYO_PROPERTY_LENGTH))
  .refine((value) => !value.startsWith('$'), m.klaviyoPropertyDollar)
  .regex(klaviyoPropertyCharacters, m.klaviyoPropertyCharacters)
  // An assistant writing an experiment's property would overwrite the shopper's group.
  .superRefine((value, context) => {
    if (experimentPropertyNamesOfAllFlows.has(value.toLowerCase())) context.addIssue({ code: 'custom', message: m.klaviyoPropertyReserved(value) });
  });

export const promptTemplateSchema = z
  .string()
  .trim()
  .min(1, m.promptTemplateRequired)
  .max(MAX_PROMPT_TEMPLATE_LENGTH, m.promptTemplateTooLong(MAX_PROMPT_TEMPLATE_LENGTH))
  .superRefine((template, context) => {
    const unknown = unknownPlaceholdersIn(template);
    if (unknown.length > 0) context.addIssue({ code: 'custom', message: m.unknownPlaceholders(unknown, promptPlaceholderTokens) });
  });

export const assistantSchema = z.object({
  name: z.string().trim().min(1, m.nameRequired).max(MAX_ASSISTANT_NAME_LENGTH, m.nameTooLong(MAX_ASSISTANT_NAME_LENGTH)),
  klaviyo_property: klaviyoPropertySchema,
  prompt_template: promptTemplateSchema,
  /** Overrides the owner's default model (their setup credential) for this assistant. */
  model: optionalText(z.string().trim().max(MAX_MODEL_LENGTH, m.modelInvalid).regex(modelName, m.modelInvalid)),
  /** Tone, length, brand voice: sent to the model as its instructions. */
  instructions: optionalText(z.string().trim().max(MAX_INSTRUCTIONS_LENGTH, m.instructionsTooLong(MAX_INSTRUCTIONS_LENGTH))),
  /** Sent instead of a text that failed its checks twice; the prompt's placeholders are filled in. */
  fallback_text: optionalText(
    z
      .string()
      .trim()
      .max(MAX_FALLBACK_TEXT_LENGTH, textRuleMessages.fallbackTooLong(MAX_FALLBACK_TEXT_LENGTH))
      .superRefine((text, context) => {
        const unknown = unknownPlaceholdersIn(text);
        if (unknown.length > 0) context.addIssue({ code: 'custom', message: m.unknownPlaceholders(unknown, promptPlaceholderTokens) });
      }),
  ),
  /** The most characters this assistant's text may have; null: MAX_TEXT_LENGTH. */
  max_length: z
    .number({ error: textRuleMessages.maxLengthRange(MAX_TEXT_LENGTH) })
    .int(textRuleMessages.maxLengthRange(MAX_TEXT_LENGTH))
    .min(1, textRuleMessages.maxLengthRange(MAX_TEXT_LENGTH))
    .max(MAX_TEXT_LENGTH, textRuleMessages.maxLengthRange(MAX_TEXT_LENGTH))
    .nullish()
    .transform((value) => value ?? null),
});
export type AssistantInput = z.input<typeof assistantSchema>;

/**
 * The assistants of a flow whose template names a placeholder that flow's events never
 * fill, with the message for the template field. The form and the flows API both refuse
 * them: the text would be written without the thing it was asked about.
 */
export function placeholderProblemsOf(
  flowType: FlowType,
  assistants: ReadonlyArray<{ prompt_template: string; fallback_text?: string | null }>,
): Array<{ index: number; field: 'prompt_template' | 'fallback_text'; message: string }> {
  const problemOf = (text: string) => {
    const notFilled = placeholdersNotFilledIn(text, flowType);
    return notFilled.length === 0 ? null : m.placeholdersNotFilled(notFilled, flowTypeDetails[flowType].title, flowPlaceholderTokens[flowType]);
  };
  return assistants.flatMap((assistant, index) => {
    const problems: Array<{ index: number; field: 'prompt_template' | 'fallback_text'; message: string }> = [];
    const inTemplate = problemOf(assistant.prompt_template);
    if (inTemplate) problems.push({ index, field: 'prompt_template', message: inTemplate });
    const inFallback = assistant.fallback_text ? problemOf(assistant.fallback_text) : null;
    if (inFallback) problems.push({ index, field: 'fallback_text', message: inFallback });
    return problems;
  });
}

/** Klaviyo treats "Subject_Line1" and "subject_line1" as two properties; owners would not. */
function propertyKey(property: string): string {
  return property.trim().toLowerCase();
}

export const assistantsSchema = z
  .array(assistantSchema)
  .min(1, m.atLeastOneAssistant)
  .max(MAX_ASSISTANTS_PER_FLOW, m.tooManyAssistants(MAX_ASSISTANTS_PER_FLOW))
  .superRefine((assistants, context) => {
    const seen = new Set<string>();
    assistants.forEach((assistant, index) => {
      // Only against a limit that is one: a limit out of range has its own message.
      const limit = assistant.max_length;
      if (assistant.fallback_text && limit && Number.isInteger(limit) && limit >= 1 && limit <= MAX_TEXT_LENGTH && assistant.fallback_text.length > limit) {
        context.addIssue({ code: 'custom', path: [index, 'fallback_text'], message: textRuleMessages.fallbackLongerThanLimit(limit) });
      }
      const key = propertyKey(assistant.klaviyo_property);
      if (key && seen.has(key)) {
        context.addIssue({ code: 'custom', path: [index, 'klaviyo_property'], message: m.klaviyoPropertyDuplicate(assistant.klaviyo_property.trim()) });
      }
      seen.add(key);
    });
  });

export const waitMinutesSchema = z
  .number()
  .int(m.waitWholeNumber)
  .min(0, m.waitRange)
  .max(MAX_WAIT_MINUTES, m.waitRange);

export const klaviyoEventNameSchema = optionalText(
  z
    .string()
    .trim()
    .max(MAX_KLAVIYO_EVENT_NAME_LENGTH, m.klaviyoEventNameTooLong(MAX_KLAVIYO_EVENT_NAME_LENGTH + 1))
    .refine((value) => !controlCharacters.test(value), m.klaviyoEventNameCharacters),
);

/** "At most one text per shopper every N hours"; 0 turns the limit off. */
export const shopperCooldownHoursSchema = z
  .number({ error: m.shopperCooldownWholeNumber })
  .int(m.shopperCooldownWholeNumber)
  .min(0, m.shopperCooldownRange(MAX_SHOPPER_COOLDOWN_HOURS))
  .max(MAX_SHOPPER_COOLDOWN_HOURS, m.shopperCooldownRange(MAX_SHOPPER_COOLDOWN_HOURS));

/** "At most N events a day" get texts in the flow. */
export const dailyGenerationCapSchema = z
  .number({ error: m.dailyGenerationCapWholeNumber })
  .int(m.dailyGenerationCapWholeNumber)
  .min(MIN_DAILY_GENERATION_CAP, m.dailyGenerationCapRange(MAX_DAILY_GENERATION_CAP))
  .max(MAX_DAILY_GENERATION_CAP, m.dailyGenerationCapRange(MAX_DAILY_GENERATION_CAP));

/** Hours a text that names no shopper is reused for identical requests; 0 = never. */
export const reuseWindowHoursSchema = z
  .number({ error: m.reuseWindowWholeNumber })
  .int(m.reuseWindowWholeNumber)
  .min(0, m.reuseWindowRange(MAX_REUSE_WINDOW_HOURS))
  .max(MAX_REUSE_WINDOW_HOURS, m.reuseWindowRange(MAX_REUSE_WINDOW_HOURS));

/** Dollars a day (UTC) the flow may spend on OpenAI, in cents' precision; null = no budget. */
export const dailyBudgetUsdSchema = z
  .number({ error: m.dailyBudgetNumber })
  .refine((value) => Number.isFinite(value) && Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, m.dailyBudgetNumber)
  .refine((value) => value > 0 && value <= MAX_DAILY_BUDGET_USD, m.dailyBudgetRange(MAX_DAILY_BUDGET_USD))
  .nullable();

/**
 * The flow's recommendations from the owner's shop: which of Shopify's intents, how many,
 * and the profile property the list is written to (null: offered to the prompts only).
 * Asked of the shop only when a prompt names {recommendations} or the property is set.
 */
export const recommendationSettingsSchema = z.object({
  intent: z.enum(recommendationIntents, { error: m.recommendationIntentChoice }).default('related'),
  count: z
    .number({ error: m.recommendationCount(MAX_RECOMMENDATIONS) })
    .int(m.recommendationCount(MAX_RECOMMENDATIONS))
    .min(1, m.recommendationCount(MAX_RECOMMENDATIONS))
    .max(MAX_RECOMMENDATIONS, m.recommendationCount(MAX_RECOMMENDATIONS))
    .default(DEFAULT_RECOMMENDATIONS),
  profileProperty: klaviyoPropertySchema.nullable().default(null),
});
export type RecommendationSettings = z.output<typeof recommendationSettingsSchema>;
export type RecommendationSettingsInput = z.input<typeof recommendationSettingsSchema>;
export const defaultRecommendationSettings: RecommendationSettings = recommendationSettingsSchema.parse({});

export const overBudgetSchema = z.enum(['wait', 'skip'], { error: m.overBudgetChoice });

/**
 * What the owner may change. The webhook URL is not among it: the server makes it from
 * PUBLIC_URL and the flow's URL key. `waitMinutes` applies to the abandonment flows only.
 * For `waitMinutes` and the two caps, absent means "keep the current value", so an older
 * page that does not know a field cannot reset it.
 */
export const updateFlowSchema = z.object({
  isActive: z.boolean(),
  assistants: assistantsSchema,
  waitMinutes: waitMinutesSchema.optional(),
  klaviyoEventName: klaviyoEventNameSchema,
  shopperCooldownHours: shopperCooldownHoursSchema.optional(),
  dailyGenerationCap: dailyGenerationCapSchema.optional(),
  useFlexTier: z.boolean().optional(),
  reuseWindowHours: reuseWindowHoursSchema.optional(),
  dailyBudgetUsd: dailyBudgetUsdSchema.optional(),
  overBudget: overBudgetSchema.optional(),
  /** Absent keeps the stored rules. */
  textRules: textRulesSchema.optional(),
  /** Absent keeps the stored settings. */
  recommendations: recommendationSettingsSchema.optional(),
}).superRefine((flow, context) => {
  // Two writers of one property would overwrite each other on every profile.
  const property = flow.recommendations?.profileProperty;
  if (property && flow.assistants.some((assistant) => assistant.klaviyo_property === property)) {
    context.addIssue({ code: 'custom', path: ['recommendations', 'profileProperty'], message: m.recommendationPropertyTaken(property) });
  }
});
export type UpdateFlowInput = z.input<typeof updateFlowSchema>;
export type UpdateFlow = z.output<typeof updateFlowSchema>;

/** An assistant as stored and returned: already validated, blanks as null. */
export const storedAssistantSchema = z.object({
  name: z.string(),
  klaviyo_property: z.string(),
  prompt_template: z.string(),
  model: z.string().nullable().default(null),
  instructions: z.string().nullable().default(null),
  fallback_text: z.string().nullable().default(null),
  max_length: z.number().int().nullable().default(null),
});
export type Assistant = z.output<typeof storedAssistantSchema>;

/**
 * docs/product/specification.md §3: the default first entry (its assistant_id is gone,
 * see docs/product/product-rules.md §1).
 */
export const defaultAssistant: Assistant = {
  name: 'Subject Line',
  klaviyo_property: 'subject_line1',
  prompt_template: 'Write a subject line for {description}',
  model: null,
  instructions: null,
  fallback_text: null,
  max_length: null,
};

/**
 * The addresses Shopify delivers webhooks to: Shopify Admin GraphQL 2026-10 (the schema
 * Flowsmith pins), WebhookSubscriptionInput.uri, "Supports an HTTPS URL, a Google Pub/Sub
 * URI (pubsub://…) or an Amazon EventBridge event source ARN". A flow's webhook URL is
 * registered as such an HTTPS URL. The schema gives no limit on its length.
 */
export const SHOPIFY_WEBHOOK_URI_PROTOCOL = 'https';
export const shopifyWebhookUriSchema = z.url({ protocol: new RegExp(`^${SHOPIFY_WEBHOOK_URI_PROTOCOL}$`), error: vendorLimitMessages.shopifyWebhookNeedsHttps });

/** Why Shopify would refuse `url` as a webhook subscription's address; null when it takes it. */
export function shopifyWebhookAddressProblem(url: string): string | null {
  const checked = shopifyWebhookUriSchema.safeParse(url);
  return checked.success ? null : (checked.error.issues[0]?.message ?? vendorLimitMessages.shopifyWebhookNeedsHttps);
}

export const flowSchema = z.object({
  id: z.string(),
  flowType: flowTypeSchema,
  isActive: z.boolean(),
  /** The stored URL; null until the flow is first saved. */
  webhookUrl: z.string().nullable(),
  /** The URL saving will store: {PUBLIC_URL}/api/webhooks/{flowType}/{URL key}. */
  generatedWebhookUrl: z.string(),
  /** True when a stored URL differs from the generated one (old format or PUBLIC_URL changed). */
  webhookUrlOutdated: z.boolean(),
  /** Until when the URL replaced by the last rotation still works; null when it no longer does. */
  previousWebhookUrlValidUntil: z.string().nullable(),
  assistants: z.array(storedAssistantSchema),
  /** Null for post purchase, which has no wait. */
  waitMinutes: z.number().int().nullable(),
  klaviyoEventName: z.string().nullable(),
  /** At most one text per shopper in this many hours; 0 = no such limit. */
  shopperCooldownHours: z.number().int(),
  /** At most this many events a day (UTC) get texts. */
  dailyGenerationCap: z.number().int(),
  /** OpenAI's flex tier when the flow waits 15 minutes or more. */
  useFlexTier: z.boolean(),
  /** Hours a text that names no shopper is reused; 0 = never. */
  reuseWindowHours: z.number().int(),
  /** Dollars a day (UTC); null = no budget. */
  dailyBudgetUsd: z.number().nullable(),
  overBudget: z.enum(['wait', 'skip']),
  textRules: textRulesSchema,
  recommendations: recommendationSettingsSchema,
  updatedAt: z.string(),
});
export type Flow = z.output<typeof flowSchema>;

export const flowParamsSchema = z.object({ flowType: flowTypeSchema });
export const flowListResponseSchema = z.object({ flows: z.array(flowSchema) });
export const initializeFlowsResponseSchema = z.object({ flows: z.array(flowSchema), created: z.number().int() });
export const updateFlowResponseSchema = z.object({
  flow: flowSchema,
  /** True when this save gave the flow its first webhook URL. */
  firstSave: z.boolean(),
  /** True when a stored URL of an older format was replaced by this save. */
  webhookUrlRewritten: z.boolean(),
});
export type UpdateFlowResponse = z.output<typeof updateFlowResponseSchema>;
export const fixWebhookUrlsResponseSchema = z.object({ updated: z.number().int(), flows: z.array(flowSchema) });
