import { z } from 'zod';
import { textLanguageCodes } from '../text-checks/text-languages.ts';
import { textRuleMessages as m } from './flow-messages.ts';
import { MAX_AUTO_APPROVE_AFTER, MAX_BANNED_PHRASE_LENGTH, MAX_BANNED_PHRASES, MAX_DISCOUNT_CODE_LENGTH, MAX_DISCOUNT_CODES } from './text-rules.ts';

/*
 * What a flow allows its written texts to say (docs/decisions/0040-texts-checked-before-delivery.md):
 * the discount codes it offers, the words it never uses, the language it writes in, and
 * what goes out when a text fails its checks twice. Stored as one JSON value per flow
 * (`flows.text_rules`); every field has a default, so a flow saved before these rules
 * existed reads as "no codes, no banned words, the shopper's language, the fallback".
 * The limits are in text-rules.ts.
 */

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
