import { z } from 'zod';
import { textLanguageCodes } from '../text-checks/text-languages.ts';
import { textRuleMessages as m } from './flow-messages.ts';

/**
 * What a flow allows its written texts to say (docs/decisions/0040-texts-checked-before-delivery.md):
 * the discount codes it offers, the words it never uses, the language it writes in, and
 * what goes out when a text fails its checks twice. Stored as one JSON value per flow
 * (`flows.text_rules`); every field has a default, so a flow saved before these rules
 * existed reads as "no codes, no banned words, the shopper's language, the fallback".
 */
export const MAX_DISCOUNT_CODES = 20;
export const MAX_DISCOUNT_CODE_LENGTH = 30;
export const MAX_BANNED_PHRASES = 100;
export const MAX_BANNED_PHRASE_LENGTH = 100;
/**
 * The fewest output tokens OpenAI lets a Responses call ask for: OpenAI OpenAPI,
 * CreateResponse.max_output_tokens, `minimum: 16` (the openai SDK's types leave it out;
 * OpenAI answers less with 400 `integer_below_min_value`).
 */
export const OPENAI_MIN_MAX_OUTPUT_TOKENS = 16;
/**
 * Output tokens asked for each text a call writes (`max_output_tokens` is this times the
 * texts of the call, reasoning included): never below OPENAI_MIN_MAX_OUTPUT_TOKENS. OpenAI's
 * definition sets no upper bound; a model's own output limit is not in it.
 */
export const MAX_OUTPUT_TOKENS_PER_TEXT = 1_024;
/**
 * The most characters any text may have: about what MAX_OUTPUT_TOKENS_PER_TEXT lets OpenAI
 * write. A text of this length is at most 12,000 bytes of UTF-8 (3 bytes a UTF-16 unit),
 * within Klaviyo's limit on one string of an event (KLAVIYO_MAX_EVENT_STRING_BYTES). The
 * texts of one event together are held to KLAVIYO_MAX_PROFILE_WRITE_BYTES when written:
 * twenty long texts in a script of several bytes a character can pass it.
 */
export const MAX_TEXT_LENGTH = 4000;
/**
 * The largest profile write Klaviyo takes, in bytes: Klaviyo OpenAPI, revision 2026-07-15
 * (klaviyo-api SDK), POST /api/profile-import (createOrUpdateProfile), "The maximum allowed
 * payload size is 100KB"; a KB read as 1,024 bytes. One write carries all of an event's texts.
 */
export const KLAVIYO_MAX_PROFILE_WRITE_BYTES = 100 * 1024;
/**
 * The largest string Klaviyo takes in an event's properties, in bytes: Klaviyo OpenAPI,
 * EventCreateQueryV2ResourceObjectAttributes.properties, "each string cannot be larger than
 * 100 KB" (the same for POST /api/event-bulk-create-jobs, bulkCreateEvents).
 */
export const KLAVIYO_MAX_EVENT_STRING_BYTES = 100 * 1024;
export const MAX_FALLBACK_TEXT_LENGTH = MAX_TEXT_LENGTH;
/** "Approve automatically after N approved in a row": N at most. */
export const MAX_AUTO_APPROVE_AFTER = 1000;
/** An owner's code as Shopify's discount codes allow: letters, digits, dash and underscore. */
const discountCodePattern = /^[A-Za-z0-9_-]+$/;
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f]/;

/** `shopper`: the language the event gives (Shopify's `customer_locale`); else a fixed one. */
export const textLanguageSettingSchema = z.union([z.literal('shopper'), z.enum(textLanguageCodes as [string, ...string[]])], { error: m.languageChoice });

export const onFailedChecksSchema = z.enum(['fallback', 'nothing'], { error: m.onFailedChecksChoice });

function uniqueIgnoringCase(values: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const value of values) {
    const key = value.toLowerCase();
    if (seen.has(key)) return value;
    seen.add(key);
  }
  return null;
}

export const textRulesSchema = z.object({
  discountCodes: z
    .array(
      z
        .string()
        .trim()
        .min(1, m.discountCodeRequired)
        .max(MAX_DISCOUNT_CODE_LENGTH, m.discountCodeTooLong(MAX_DISCOUNT_CODE_LENGTH))
        .regex(discountCodePattern, m.discountCodeCharacters),
    )
    .max(MAX_DISCOUNT_CODES, m.tooManyDiscountCodes(MAX_DISCOUNT_CODES))
    .superRefine((codes, context) => {
      const repeated = uniqueIgnoringCase(codes);
      if (repeated) context.addIssue({ code: 'custom', message: m.discountCodeRepeated(repeated) });
    })
    .default([]),
  /** The flow's emails use a Klaviyo coupon (`{% coupon_code 'NAME' %}`), so texts may too. */
  offersCoupon: z.boolean().default(false),
  bannedPhrases: z
    .array(
      z
        .string()
        .trim()
        .min(1, m.bannedPhraseRequired)
        .max(MAX_BANNED_PHRASE_LENGTH, m.bannedPhraseTooLong(MAX_BANNED_PHRASE_LENGTH))
        .refine((phrase) => !controlCharacters.test(phrase), m.bannedPhraseCharacters)
        .refine((phrase) => !/[{}]/.test(phrase), m.bannedPhrasePlaceholder),
    )
    .max(MAX_BANNED_PHRASES, m.tooManyBannedPhrases(MAX_BANNED_PHRASES))
    .superRefine((phrases, context) => {
      const repeated = uniqueIgnoringCase(phrases);
      if (repeated) context.addIssue({ code: 'custom', message: m.bannedPhraseRepeated(repeated) });
    })
    .default([]),
  language: textLanguageSettingSchema.default('shopper'),
  onFailedChecks: onFailedChecksSchema.default('fallback'),
  /** Texts wait in the review list for the owner before delivery. */
  requireApproval: z.boolean().default(false),
  /** Once the owner approved this many texts in a row unchanged, new ones are approved automatically; null: never. */
  autoApproveAfter: z
    .number({ error: m.autoApproveAfterRange(MAX_AUTO_APPROVE_AFTER) })
    .int(m.autoApproveAfterRange(MAX_AUTO_APPROVE_AFTER))
    .min(1, m.autoApproveAfterRange(MAX_AUTO_APPROVE_AFTER))
    .max(MAX_AUTO_APPROVE_AFTER, m.autoApproveAfterRange(MAX_AUTO_APPROVE_AFTER))
    .nullable()
    .default(null),
});
export type TextRules = z.output<typeof textRulesSchema>;
export type TextRulesInput = z.input<typeof textRulesSchema>;

export const defaultTextRules: TextRules = textRulesSchema.parse({});

/** The owner's list fields as the form edits them: one entry per line. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}
