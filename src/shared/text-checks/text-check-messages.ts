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
} as const;
