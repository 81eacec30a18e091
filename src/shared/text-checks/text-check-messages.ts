/**
 * What the event log says when a written text failed a check before delivery. The same
 * words name the failure to OpenAI when the text is written again, so they say what is
 * wrong and what the text may use instead.
 */
export const textCheckNames = {
  amounts: 'Prices',
  discount_codes: 'Discount codes',
  links: 'Links',
  length: 'Length',
  cut_off: 'Complete text',
  banned_phrases: 'Banned words',
  products: 'Products',
  language: 'Language',
  moderation: 'Moderation',
} as const;

export type TextCheckName = keyof typeof textCheckNames;

export const textCheckMessages = {
  amountUnknown: (found: string) => `It names ${found}, which is not a price or total of this event.`,
  amountOtherCurrency: (found: string, currency: string) => `It names ${found}, not in this event's currency (${currency}).`,
  codeNotOffered: (found: string) => `It names ${found}, a discount code this flow does not offer.`,
  couponNotOffered: 'It uses a Klaviyo coupon placeholder, and this flow offers no coupon.',
  linkElsewhere: (found: string) => `It links to ${found}, which is neither the shop's own site nor one of this event's addresses.`,
  tooLong: (length: number, limit: number) => `It is ${length} characters long; the most is ${limit}.`,
  cutOff: 'It was cut off before its end.',
  endsMidSentence: (ending: string) => `It ends in the middle of a sentence ("${ending}").`,
  banned: (phrase: string) => `It uses "${phrase}", which this flow's banned words exclude.`,
  productUnknown: (found: string) => `It names "${found}", which is neither a product of this event nor one the shop sells.`,
  wrongLanguage: (found: string, expected: string) => `It is written in ${found}; the shopper reads ${expected}.`,
  flagged: (categories: readonly string[]) => `OpenAI's moderation flagged it (${categories.join(', ')}).`,
} as const;

/** What the event log and OpenAI are told around a text that failed its checks. */
export const textCheckOutcomeMessages = {
  /** Sent to OpenAI with the prompt when the first text failed: what was wrong, in the checks' words. */
  rewriteRequest: (text: string, reasons: readonly string[]) =>
    `Your earlier text for this was refused before it reached the shopper:\n"""${text}"""\nWhy:\n${reasons.map((reason) => `- ${reason}`).join('\n')}\nWrite it again without these problems, keeping to every other instruction.`,
  /** The event's reason when a text failed twice and the flow sends nothing. */
  nothingSent: (assistants: readonly string[]) =>
    `${assistants.map((name) => `"${name}"`).join(', ')} failed ${assistants.length === 1 ? 'its' : 'their'} checks twice, so nothing was sent, as the flow says. The event log shows what failed.`,
  delivered: {
    written: 'Delivered as written: every check passed.',
    rewritten: 'Written again after failing its checks; the second text passed and was delivered.',
    fallback: "Failed its checks twice; the assistant's fallback text was delivered instead.",
    nothing: 'Failed its checks twice; nothing was delivered.',
    edited: 'Edited by you in the review list; your text was delivered as you wrote it.',
  },
  notChecked: 'Not checked yet.',
  notRun: 'not run',
} as const;
