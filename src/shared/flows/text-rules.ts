/*
 * The limits of what a flow allows its written texts to say, and how the form reads its
 * lists, apart from the schema that enforces them (text-rules-schemas.ts): the flow page
 * shows them beside its fields, and its first view loads without zod.
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

/** The owner's list fields as the form edits them: one entry per line. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}
