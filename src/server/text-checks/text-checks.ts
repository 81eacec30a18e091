import type { NormalizedEvent } from '../../shared/events/event-schemas.ts';
import { textCheckMessages as m, type TextCheckName } from '../../shared/text-checks/text-check-messages.ts';

/**
 * The checks a written text passes before it may reach a shopper's profile: what it says
 * must be true of the event and allowed by the flow. Pure: the text, the event's facts and
 * the flow's rules go in, every failure comes out (an empty list is a pass). The caller
 * looks the facts up, asks OpenAI again naming the failures, and decides what is delivered.
 *
 * Each check errs towards refusing: a text that fails is written again once, and a false
 * alarm costs one more call, while a false pass puts an invented price or code in front of
 * a customer.
 */
export interface TextFacts {
  event: NormalizedEvent;
  /** The shop's own domains (its myshopify.com domain and its storefront's). */
  shopDomains: readonly string[];
}

export interface TextRules {
  /** The most characters the text may have: the assistant's limit within Klaviyo's. */
  maxLength: number;
  /** The discount codes the owner gave the flow; any other code-like token fails. */
  allowedCodes: readonly string[];
  /** Whether the flow offers a Klaviyo coupon (`{% coupon_code '…' %}`). */
  couponPlaceholderAllowed: boolean;
  /** Words and phrases the owner never wants said, matched as whole words, any case. */
  bannedPhrases: readonly string[];
  /** OpenAI stopped at the output limit (a Responses `incomplete` answer). */
  endedAtOutputLimit: boolean;
}

export interface TextCheckFailure {
  check: TextCheckName;
  /** The part of the text that failed, as written. */
  found: string;
  /** Why, in the event log's words. */
  reason: string;
}

export function checkText(text: string, facts: TextFacts, rules: TextRules): TextCheckFailure[] {
  const links = findLinks(text);
  const withoutLinks = links.reduce((rest, link) => rest.replace(link, ' '), text);
  const amounts = findAmounts(withoutLinks);
  const withoutAmounts = amounts.reduce((rest, amount) => rest.replace(amount.written, ' '), withoutLinks);
  return [
    ...checkAmounts(amounts, facts.event),
    ...checkCodes(withoutAmounts, facts.event, rules),
    ...checkLinks(links, facts),
    ...checkLength(text, rules),
    ...checkBanned(text, rules.bannedPhrases),
  ];
}

// ---- Amounts ----------------------------------------------------------------------

/** Which currencies a sign may stand for; a sign that could mean the event's currency passes. */
const currencySigns: Record<string, readonly string[]> = {
  US$: ['USD'],
  CA$: ['CAD'],
  C$: ['CAD'],
  A$: ['AUD'],
  AU$: ['AUD'],
  NZ$: ['NZD'],
  HK$: ['HKD'],
  S$: ['SGD'],
  MX$: ['MXN'],
  R$: ['BRL'],
  $: ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN', 'ARS', 'CLP', 'COP', 'TWD'],
  '€': ['EUR'],
  '£': ['GBP'],
  '¥': ['JPY', 'CNY'],
  '円': ['JPY'],
  '元': ['CNY'],
  '₹': ['INR'],
  '₩': ['KRW'],
  '₺': ['TRY'],
  '₪': ['ILS'],
  '₱': ['PHP'],
  '₫': ['VND'],
  zł: ['PLN'],
  kr: ['SEK', 'NOK', 'DKK', 'ISK'],
  CHF: ['CHF'],
  'Fr.': ['CHF'],
};
/** ISO 4217 codes a text may write beside an amount ("49.99 USD"). */
const currencyCodes = new Set(
  'USD EUR GBP CAD AUD NZD JPY CNY INR KRW CHF SEK NOK DKK ISK PLN CZK HUF RON BGN TRY ILS BRL MXN ARS CLP COP HKD SGD TWD THB MYR IDR PHP VND ZAR AED SAR'.split(' '),
);

interface FoundAmount {
  written: string;
  value: number;
  /** The currencies its sign or code may stand for. */
  currencies: readonly string[];
}

const signPattern = Object.keys(currencySigns)
  .sort((a, b) => b.length - a.length)
  .map((sign) => sign.replace(/[.$]/g, '\\$&'))
  .join('|');
const codePattern = [...currencyCodes].join('|');
// A number as shops write prices: 1,234.56 · 1.234,56 · 1 234,56 · 49 · 49.9. Japanese and
// Chinese write no space around it (2,450円です), so only Latin letters bound a sign after it.
const numberPattern = String.raw`\d{1,3}(?:[.,\u00a0 ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
const amountPattern = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?<before>${signPattern}|${codePattern})\s?(?<n1>${numberPattern})|(?<![\p{N}.,])(?<n2>${numberPattern})\s?(?<after>${signPattern}|${codePattern})(?![A-Za-z])`,
  'gu',
);

function findAmounts(text: string): FoundAmount[] {
  const found: FoundAmount[] = [];
  for (const match of text.matchAll(amountPattern)) {
    const groups = match.groups!;
    const sign = (groups.before ?? groups.after)!;
    const value = parseAmount((groups.n1 ?? groups.n2)!);
    if (value === null) continue;
    found.push({ written: match[0].trim(), value, currencies: currencySigns[sign] ?? [sign] });
  }
  return found;
}

/** "1.234,56" and "1,234.56" are both 1234.56: a separator before one or two final digits is the decimal one. */
export function parseAmount(written: string): number | null {
  const compact = written.replace(/[\u00a0 ]/g, '');
  const decimal = /[.,](\d{1,2})$/.exec(compact);
  const whole = (decimal ? compact.slice(0, decimal.index) : compact).replace(/[.,]/g, '');
  if (!/^\d+$/.test(whole)) return null;
  return Number(`${whole}.${decimal?.[1] ?? '0'}`);
}

/** Every amount the event states: each price, each line (price × quantity), the total. */
function amountsOf(event: NormalizedEvent): number[] {
  const amounts: number[] = [];
  const add = (written: string | null, times = 1) => {
    const value = written === null ? null : Number(written);
    if (value !== null && Number.isFinite(value)) amounts.push(Math.round(value * times * 100) / 100);
  };
  for (const product of event.products) {
    add(product.price);
    if (product.quantity && product.quantity > 1) add(product.price, product.quantity);
  }
  add(event.total);
  return amounts;
}

function checkAmounts(found: FoundAmount[], event: NormalizedEvent): TextCheckFailure[] {
  const known = amountsOf(event);
  const currency = event.currency?.toUpperCase() ?? null;
  return found.flatMap((amount): TextCheckFailure[] => {
    if (currency && !amount.currencies.includes(currency)) {
      return [{ check: 'amounts', found: amount.written, reason: m.amountOtherCurrency(amount.written, currency) }];
    }
    if (!known.some((value) => Math.abs(value - amount.value) < 0.005)) {
      return [{ check: 'amounts', found: amount.written, reason: m.amountUnknown(amount.written) }];
    }
    return [];
  });
}

// ---- Discount codes ------------------------------------------------------------------

const couponPlaceholder = /\{%-?\s*coupon_code\b[^%]*%\}/gu;
/** Letters and digits together in capitals (SAVE20, 10OFF, WELCOME-15): how codes are written. */
const codeShaped = /(?<![\p{L}\p{N}_-])(?=[A-Z0-9_-]*[A-Z])(?=[A-Z0-9_-]*\d)[A-Z0-9][A-Z0-9_-]{3,29}(?![\p{L}\p{N}_-])/gu;
/** A capitalised word right after "code", "coupon" or "promo": "use code WELCOME". */
const afterCodeWord = /\b(?:code|coupon|promo|voucher|gutschein|c[oó]digo|rabattcode)\s*[:\-–]?\s*["'“‘«]?(?<code>[\p{Lu}0-9][\p{Lu}0-9_-]{2,29})(?![\p{L}\p{N}])/giu;

function checkCodes(text: string, event: NormalizedEvent, rules: TextRules): TextCheckFailure[] {
  const failures: TextCheckFailure[] = [];
  if (!rules.couponPlaceholderAllowed) {
    for (const match of text.matchAll(couponPlaceholder)) failures.push({ check: 'discount_codes', found: match[0], reason: m.couponNotOffered });
  }
  const rest = text.replace(couponPlaceholder, ' ');
  const allowed = new Set(rules.allowedCodes.map((code) => code.trim().toUpperCase()));
  // What the event itself names (a model number in a product's name) is not an invented code.
  const eventWords = new Set(
    event.products.flatMap((product) => [product.name, product.id, product.description].filter((part): part is string => !!part)).flatMap((part) => part.toUpperCase().split(/[^\p{L}\p{N}_-]+/u)),
  );
  const candidates = new Set([...[...rest.matchAll(codeShaped)].map((match) => match[0]), ...[...rest.matchAll(afterCodeWord)].map((match) => match.groups!.code!)]);
  for (const candidate of candidates) {
    const upper = candidate.toUpperCase();
    if (allowed.has(upper) || currencyCodes.has(upper) || eventWords.has(upper)) continue;
    failures.push({ check: 'discount_codes', found: candidate, reason: m.codeNotOffered(candidate) });
  }
  return failures;
}

// ---- Links -------------------------------------------------------------------------

/**
 * Addresses without `http` or `www.` ("deals.example.com/sale") count when they end in a
 * top-level domain shops and their rivals use; the list keeps "e.g." or "Node.js" from
 * reading as links. An e-mail address is not a link.
 */
const topLevelDomains = 'com|net|org|shop|store|online|site|info|biz|io|co|app|eu|us|uk|ca|au|nz|de|at|ch|fr|be|nl|lu|es|pt|it|ie|se|no|dk|fi|is|pl|cz|sk|hu|ro|bg|gr|tr|ru|ua|jp|cn|kr|in|sg|hk|tw|br|mx|ar|cl|za';
const linkPattern = new RegExp(
  String.raw`\bhttps?:\/\/[^\s<>"'\u0060)\]}]+|\bwww\.[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+[^\s<>"'\u0060)\]}]*|(?<![@\p{L}\p{N}.\/-])(?:[\p{L}\p{N}][\p{L}\p{N}-]*\.)+(?:${topLevelDomains})(?![\p{L}\p{N}-])(?:\/[^\s<>"'\u0060)\]}]*)?`,
  'giu',
);

function findLinks(text: string): string[] {
  return [...text.matchAll(linkPattern)].map((match) => match[0].replace(/[.,;:!?]+$/u, ''));
}

function checkLinks(links: string[], facts: TextFacts): TextCheckFailure[] {
  const domains = facts.shopDomains.map((domain) => domain.toLowerCase().replace(/^www\./, ''));
  const eventAddresses = new Set(
    [facts.event.checkoutUrl, ...facts.event.products.map((product) => product.url)].filter((url): url is string => !!url).map(comparableAddress),
  );
  return links.flatMap((link): TextCheckFailure[] => {
    let host: string;
    try {
      host = new URL(/^https?:/i.test(link) ? link : `https://${link}`).hostname.toLowerCase().replace(/^www\./, '');
    } catch {
      return [{ check: 'links', found: link, reason: m.linkElsewhere(link) }];
    }
    const shops = domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
    if (shops || eventAddresses.has(comparableAddress(link))) return [];
    return [{ check: 'links', found: link, reason: m.linkElsewhere(link) }];
  });
}

function comparableAddress(url: string): string {
  return url.replace(/^https?:\/\//i, '').replace(/^www\./i, '').replace(/\/+$/, '').toLowerCase();
}

// ---- Length and completeness -----------------------------------------------------------

/** Words no sentence ends on, in the languages shops write most. */
const danglingWords = new Set('and or but the a an to with for of your our in on at und oder der die das mit für et ou le la les de des pour avec y o el los las con para por e il lo di per'.split(' '));

function checkLength(text: string, rules: TextRules): TextCheckFailure[] {
  const failures: TextCheckFailure[] = [];
  const length = [...text].length;
  if (length > rules.maxLength) failures.push({ check: 'length', found: `${length}`, reason: m.tooLong(length, rules.maxLength) });
  if (rules.endedAtOutputLimit) {
    failures.push({ check: 'cut_off', found: text.slice(-30), reason: m.cutOff });
    return failures;
  }
  const trimmed = text.trim();
  const ending = trimmed.slice(-30);
  const lastWord = /([\p{L}]+)$/u.exec(trimmed)?.[1]?.toLowerCase();
  const opened = (open: string, close: string) => trimmed.split(open).length - 1 > trimmed.split(close).length - 1;
  if (/[,;:(\-–—]$/u.test(trimmed) || (lastWord !== undefined && danglingWords.has(lastWord)) || opened('(', ')') || opened('“', '”') || (trimmed.split('"').length - 1) % 2 === 1) {
    failures.push({ check: 'cut_off', found: ending, reason: m.endsMidSentence(ending) });
  }
  return failures;
}

// ---- Banned words ------------------------------------------------------------------

function checkBanned(text: string, phrases: readonly string[]): TextCheckFailure[] {
  return phrases.flatMap((phrase): TextCheckFailure[] => {
    const words = phrase.trim().split(/\s+/u).filter(Boolean);
    if (words.length === 0) return [];
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${words.map(escapeRegExp).join('\\s+')}(?![\\p{L}\\p{N}])`, 'iu');
    const match = pattern.exec(text);
    return match ? [{ check: 'banned_phrases', found: match[0], reason: m.banned(phrase.trim()) }] : [];
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
