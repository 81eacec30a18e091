import { textCheckMessages as m } from '../../shared/text-checks/text-check-messages.ts';
import type { TextCheckFailure } from './text-checks.ts';

/**
 * Products a text names that are neither the event's nor the shop's: OpenAI, asked for a
 * text about a mug, may praise a matching "Nordic Saucer Set" the shop never sold.
 *
 * A text names a product the way marketing writes names: in quotes, or in capitals
 * mid-sentence ("your Alpine Trail Jacket"). Everything else written in capitals is left
 * alone — the first word of a sentence, a subject line in Title Case, German nouns after
 * a sentence's first word, holidays and sale words — because a candidate that is no
 * product costs a Shopify search and, unfound, a text written again. So a product named
 * only at a sentence's start ("Nordic Lamp is back") or in a Title-Case sentence goes
 * unnoticed: this check finds inventions, it does not prove their absence.
 *
 * The caller searches the shop's catalogue for each candidate (searchShopifyProductTitles)
 * and fails those it does not find (checkProductNames).
 */
export interface KnownNames {
  /** The event's products, and any the shop is known to sell. */
  productNames: readonly string[];
  /** The shopper's and the shop's names, which are never products. */
  otherNames: readonly string[];
}

/** Enough to name what is wrong; more would only be more Shopify searches. */
const mostCandidates = 5;

export function productNameCandidates(text: string, known: KnownNames): string[] {
  const withoutMarkup = text.replace(markup, breaker);
  const withoutOthers = withoutNames(withoutMarkup, known.otherNames);
  const quoted = quotedPhrases(withoutOthers);
  const titleCase = titleCaseRuns(withoutOthers.replace(quotePattern, breaker));
  const candidates: string[] = [];
  const seen = new Set<string>();
  for (const phrase of [...quoted, ...titleCase]) {
    const key = words(phrase).join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    if ([...known.productNames, ...known.otherNames].some((name) => namesMatch(phrase, name))) continue;
    candidates.push(phrase);
    if (candidates.length === mostCandidates) break;
  }
  return candidates;
}

export function checkProductNames(unknown: readonly string[]): TextCheckFailure[] {
  return unknown.map((phrase) => ({ check: 'products', found: phrase, reason: m.productUnknown(phrase) }));
}

/**
 * Whether a phrase names the product (or person, or shop) `name`: ignoring case, accents
 * and punctuation, one contains the other, or most words of the shorter one are in the
 * other ("the Alpine Jacket" names "Alpine Trail Jacket – Blue"; "Trail Runner" does not).
 */
export function namesMatch(phrase: string, name: string): boolean {
  const a = words(phrase);
  const b = words(name);
  if (a.length === 0 || b.length === 0) return false;
  const joinedA = ` ${a.join(' ')} `;
  const joinedB = ` ${b.join(' ')} `;
  if (joinedA.includes(joinedB) || joinedB.includes(joinedA)) return true;
  const significantA = new Set(a.filter((word) => !nameConnectors.has(word)).map(singular));
  const significantB = new Set(b.filter((word) => !nameConnectors.has(word)).map(singular));
  if (significantA.size === 0 || significantB.size === 0) return false;
  const shared = [...significantA].filter((word) => significantB.has(word)).length;
  return shared / Math.min(significantA.size, significantB.size) > 0.5;
}

// ---- Words --------------------------------------------------------------------------

/** Lower case, no accents, no possessive 's, split on anything but letters and digits. */
function words(text: string): string[] {
  return fold(text)
    .replace(/['’]s(?![\p{L}\p{N}])/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

// eslint-disable-next-line no-control-regex
const plainAscii = /^[\u0000-\u007f]*$/;

/** Lower case without accents. Plain ASCII, most of what shops write, skips the Unicode work: every text of a backlog comes here. */
function fold(text: string): string {
  if (plainAscii.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

function singular(word: string): string {
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

/** Small words a product's name may have inside ("Lord of the Rings", "Crème de la Mer"). */
const nameConnectors = new Set('of and the for de du des la le les di del della da von van der den y e et und au à'.split(' '));

// ---- Quoted phrases -------------------------------------------------------------------

/** “…” "…" «…» „…“ ‘…’: not straight single quotes, which are apostrophes as often. */
const quotePattern = /„([^“”\n]{1,80})[“”]|“([^”\n]{1,80})”|"([^"\n]{1,80})"|«\s?([^»\n]{1,80}?)\s?»|‘([^’\n]{1,80})’/gu;

function quotedPhrases(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(quotePattern)) {
    const phrase = match.slice(1).find((group) => group !== undefined)!.trim();
    if (looksLikeQuotedName(phrase)) found.push(phrase);
  }
  return found;
}

/**
 * A name rather than speech or emphasis (“Come back soon”, “cozy”): every word capitalised
 * except small connectors, at most six words, no sentence punctuation at its end, and
 * neither a discount code (the code check's) nor only sale words (“Black Friday”).
 */
function looksLikeQuotedName(phrase: string): boolean {
  // A name has letters: a quoted "89.5" is an amount, the amounts check's to judge.
  if (phrase.includes(breaker) || /[.!?,;:]$/u.test(phrase) || !/\p{L}/u.test(phrase)) return false;
  const parts = phrase.split(/\s+/u).filter((part) => /[\p{L}\p{N}]/u.test(part));
  if (parts.length === 0 || parts.length > 6) return false;
  if (parts.length === 1 && /^[\p{Lu}\p{N}_-]+$/u.test(parts[0]!)) return false;
  if (!parts.every((part) => isCapitalised(part) || /^\p{N}/u.test(part) || nameConnectors.has(fold(part)))) return false;
  const [from, to] = saleWordsTrimmed(parts);
  return to > from;
}

// ---- Title-Case runs ------------------------------------------------------------------

/** What cannot be part of a name: it breaks a run of capitalised words, like a comma does. */
const breaker = ' \u2016 ';
const markup = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}|\bhttps?:\/\/\S+|\bwww\.\S+|\S+@\S+\.\S+/gu;

interface Token {
  text: string;
  start: number;
  end: number;
  /** The first word of a sentence or a line: capitalised whatever it is. */
  opensSentence: boolean;
  /** The first word after a colon or semicolon, which may be capitalised too ("New in: Merino Socks"). */
  opensClause: boolean;
  /** Only spaces, a dash or "&" between it and the word before: both may belong to one name. */
  joinsPrevious: boolean;
  /** "Nr.", "St.", "No.": a word that only stands before a number or a name. */
  abbreviation: boolean;
}

const abbreviations = new Set('nr no nº st dr mr mrs ms art gr inc ltd co vs ca bzw'.split(' '));
const wordPattern = /[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}'’-]*[\p{L}\p{M}\p{N}])?/gu;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let previousEnd = 0;
  for (const match of text.matchAll(wordPattern)) {
    const gap = text.slice(previousEnd, match.index);
    previousEnd = match.index + match[0].length;
    tokens.push({
      text: match[0],
      start: match.index,
      end: previousEnd,
      opensSentence: tokens.length === 0 || /[.!?…\n\r•·]/u.test(gap),
      opensClause: /[:;]/u.test(gap),
      joinsPrevious: tokens.length > 0 && /^[^\S\n\r]*(?:[-–&][^\S\n\r]*)?$/u.test(gap),
      abbreviation: text[previousEnd] === '.' && abbreviations.has(fold(match[0])),
    });
  }
  return tokens;
}

function opens(token: Token): boolean {
  return token.opensSentence || token.opensClause;
}

/**
 * Two names in one run ("the Trail Runner Shoes and the Summit Pack") as two, each
 * searched for on its own; "Salt & Pepper Grinder" stays whole, "Salt" being no name.
 */
function splitAtAnd(run: Token[]): Token[][] {
  const capitals = (part: Token[]) => part.filter((token) => isCapitalised(token.text)).length;
  for (let index = 1; index < run.length - 1; index++) {
    if (!listJoiners.has(run[index]!.text)) continue;
    const before = run.slice(0, index);
    let after = run.slice(index + 1);
    while (after.length > 0 && nameConnectors.has(after[0]!.text)) after = after.slice(1);
    if (capitals(before) >= 2 && capitals(after) >= 2) return [before, ...splitAtAnd(after)];
  }
  return [run];
}

const listJoiners = new Set(['and', 'und', 'et', 'y', 'e', 'en', 'och', 'og', 'i']);

/** "Alpine", "XR500", "iPhone", "T-Shirt": a name's word. */
function isCapitalised(word: string): boolean {
  return /^\p{Lu}/u.test(word) || /^\p{Ll}\p{Lu}/u.test(word);
}

/** A small word inside a name: "of", "de la", and "the" only after "of" ("Lord of the Rings"). */
function innerWord(word: string, previous: string): boolean {
  return word === 'the' ? previous === 'of' : nameConnectors.has(word) || listJoiners.has(word);
}

function titleCaseRuns(text: string): string[] {
  const tokens = tokenize(text);
  const lowercaseWords = new Set(tokens.filter((token) => /^\p{Ll}/u.test(token.text)).map((token) => fold(token.text)));
  const headlines = titleCaseSentences(tokens);
  const runs: Token[][] = [];
  let run: Token[] = [];
  tokens.forEach((token, index) => {
    const nameWord = !token.abbreviation && (isCapitalised(token.text) || (run.length > 0 && (innerWord(token.text, run.at(-1)!.text) || /^\p{N}/u.test(token.text))));
    const continues = run.length > 0 && token.joinsPrevious && !opens(token);
    if (nameWord && (continues || isCapitalised(token.text)) && !headlines.has(index)) {
      if (!continues && run.length > 0) runs.push(run);
      run = continues ? [...run, token] : [token];
    } else {
      if (run.length > 0) runs.push(run);
      run = [];
    }
  });
  if (run.length > 0) runs.push(run);
  return runs.flatMap((found) => {
    const trimmed = trimRun(found, lowercaseWords);
    return splitAtAnd(trimmed).flatMap((part) => (part.filter((token) => !opens(token) && isCapitalised(token.text)).length >= 2 ? [joinRun(part, text)] : []));
  });
}

/**
 * The indexes of tokens in sentences written in Title Case ("Your Cart Misses You",
 * "Still Thinking About the Nordic Lamp?", "New in: Merino Socks"): at least three words
 * that count, all capitalised. Small words a headline leaves in lower case, and German's,
 * French's and Spanish's, which those languages never capitalise, do not count.
 */
function titleCaseSentences(tokens: Token[]): Set<number> {
  const inHeadlines = new Set<number>();
  let start = 0;
  for (let end = 1; end <= tokens.length; end++) {
    if (end < tokens.length && !tokens[end]!.opensSentence) continue;
    const counted = tokens.slice(start, end).filter((token) => /^\p{L}/u.test(token.text) && !headlineSmallWords.has(token.text));
    const capitalised = counted.filter((token) => isCapitalised(token.text)).length;
    if (counted.length >= 3 && capitalised === counted.length) for (let index = start; index < end; index++) inHeadlines.add(index);
    start = end;
  }
  return inHeadlines;
}

const headlineSmallWords = new Set(
  'a an the and or but nor for of on in at to by with from as vs via per und oder für mit von zu zum zur im am auf aus bei nach der die das den dem des ein eine et ou pour avec de du le la les y o para con por el los las e per di da il lo gli en het een van voor met op'.split(' '),
);

/**
 * A run without what only looks like a name: leading pronouns, articles and greetings
 * ("Your", "Dein", "Hi"), a sentence's first word that the text also writes in lower case,
 * sale words and holidays at either end, and connectors or numbers left at its end.
 */
function trimRun(run: Token[], lowercaseWords: ReadonlySet<string>): Token[] {
  let tokens = run;
  for (;;) {
    const first = tokens[0];
    if (!first) return tokens;
    const folded = fold(first.text);
    if (openingWords.has(folded) || (opens(first) && lowercaseWords.has(folded))) tokens = tokens.slice(1);
    else break;
  }
  const [from, to] = saleWordsTrimmed(tokens.map((token) => token.text));
  tokens = tokens.slice(from, to);
  while (tokens.length > 0 && !isCapitalised(tokens.at(-1)!.text)) tokens = tokens.slice(0, -1);
  return tokens;
}

/** Where the words between sale phrases at either end begin and end ("Black Friday Alpine Jacket Deals" → "Alpine Jacket"). */
function saleWordsTrimmed(parts: readonly string[]): [number, number] {
  const folded = parts.map((part) => words(part).join(' '));
  const phraseAt = (index: number, phrase: readonly string[]) => phrase.every((word, offset) => folded[index + offset] === word);
  let from = 0;
  let to = parts.length;
  for (let changed = true; changed && from < to; ) {
    changed = false;
    while (from < to && nameConnectors.has(folded[from]!)) {
      from += 1;
      changed = true;
    }
    const leading = salePhrases.find((phrase) => to - from >= phrase.length && phraseAt(from, phrase));
    if (leading) from += leading.length;
    const trailing = salePhrases.find((phrase) => to - from >= phrase.length && phraseAt(to - phrase.length, phrase));
    if (trailing) to -= trailing.length;
    changed ||= leading !== undefined || trailing !== undefined;
  }
  return [from, Math.max(from, to)];
}

/** The run as the text writes it, so "Salt & Pepper" and "Jacket – Blue" keep their joiners. */
function joinRun(tokens: Token[], text: string): string {
  return text.slice(tokens[0]!.start, tokens.at(-1)!.end);
}

/** Replaces each of `names` where the text writes it (any case, any accents) by a breaker. */
function withoutNames(text: string, names: readonly string[]): string {
  // Folded character by character, keeping each one's length, so positions stay the text's.
  const foldedText = plainAscii.test(text)
    ? text.toLowerCase()
    : [...text]
        .map((char) => {
          const plain = fold(char);
          return plain.length === char.length ? plain : char;
        })
        .join('');
  const ranges: Array<[number, number]> = [];
  for (const name of names) {
    const target = fold(name.trim());
    if (target.length < 2) continue;
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(target)}(?![\\p{L}\\p{N}])`, 'gu');
    for (const match of foldedText.matchAll(pattern)) ranges.push([match.index, match.index + match[0].length]);
  }
  // "Ada" inside "Ada Lovelace": one range for both.
  const merged: Array<[number, number]> = [];
  for (const [start, end] of ranges.sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged.reduceRight((rest, [start, end]) => rest.slice(0, start) + breaker + rest.slice(end), text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---- Words that are no product --------------------------------------------------------

/** Pronouns, articles, greetings and verbs that open a sentence in capitals, in the languages shops write most. */
const openingWords = new Set(
  [
    'your yours our my his her their its the a an this that these those hi hello hey dear thanks thank welcome meet get grab shop discover explore enjoy say see find treat give take make keep try buy order add complete finish come back don’t don\'t still only just now today why what how when where who we you i it there here good great happy merry best top last all every psst oops hurry ready need want love ps yes so and but or because also plus with for from in on at by as if while after before once then',
    'dein deine deinen deinem deiner ihr ihre ihren ihrem ihrer unser unsere unseren euer eure der die das den dem des ein eine einen einem hallo liebe lieber danke jetzt neu entdecke sichere hol du sie wir dir dich ihnen mit für von zum zur im am',
    'votre vos ton ta tes notre nos le la les un une bonjour salut cher chère merci découvrez profitez',
    'tu tus su sus nuestro nuestra el los las una hola gracias descubre',
    'il lo gli tuo tua tuoi tue ciao grazie scopri',
    'je jouw uw het een hoi bedankt ontdek',
    'o os as seu sua teu olá obrigado obrigada',
    'din ditt dina dit dine hej hei tack tak takk',
    'twój twoja twoje cześć dzięki',
  ]
    .join(' ')
    .split(' ')
    .map(fold),
);

/**
 * Sale words, holidays, seasons, weekdays and months, shop pages, carriers and payment
 * methods, and places shops ship to: capitalised in marketing, and no product. Each entry
 * is a phrase matched word for word at a run's ends.
 */
const salePhrases: readonly (readonly string[])[] = [
  'black friday|cyber monday|cyber week|prime day|singles day|boxing day|small business saturday|giving tuesday|super bowl',
  'free shipping|free delivery|free returns|new arrivals|new arrival|new in|new season|new collection|best seller|best sellers|back in stock|last chance|limited edition|limited time|flash sale|gift card|gift cards|gift guide',
  'happy holidays|merry christmas|happy new year|season’s greetings|mother’s day|father’s day|valentine’s day|thank you|customer service|customer care|help center|terms and conditions|terms of service|privacy policy|order status',
  'shop now|buy now|order now|add to cart|check out|sign up|sold out|coming soon|early access|members only|just for you|top picks|staff picks|must have|must haves|don’t miss out|end of season|mid season',
  'apple pay|google pay|shop pay|amazon pay|royal mail|canada post|australia post|la poste|deutsche post|dhl express',
  'united states|united kingdom|new zealand|south africa|hong kong|puerto rico|costa rica|saudi arabia|united arab emirates|new york|los angeles|san francisco|las vegas',
  'frohe weihnachten|frohe ostern|guten rutsch|schönes wochenende|kostenloser versand|gratis versand|neue kollektion|liebe grüße|viele grüße|joyeux noël|bonne année|feliz navidad|buon natale|prettige feestdagen|god jul|glædelig jul',
  'sale|sales|deal|deals|offer|offers|discount|discounts|off|free|shipping|delivery|returns|cart|basket|checkout|order|orders|shop|store|now|today|tonight|tomorrow|weekend|week|day|days|holiday|holidays|season|new|arrivals|exclusive|limited|edition|clearance|outlet|sitewide|storewide|bestseller|bestsellers|vip|save|savings|hurry|final|call|reminder|alert|update|news|newsletter|team|gift|gifts|collection|happy|merry|greetings|wishes|cheers|welcome|thanks|hi|hello|dear',
  'christmas|xmas|easter|halloween|thanksgiving|hanukkah|diwali|eid|ramadan|valentine|valentine’s|spring|summer|autumn|fall|winter',
  'monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december',
  'angebot|angebote|rabatt|versand|kostenlos|kostenloser|gratis|warenkorb|bestellung|weihnachten|ostern|wochenende|neuheiten|grüße|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag',
]
  .join('|')
  .split('|')
  .map((phrase) => words(phrase))
  // Longest first, so "new arrivals" goes whole before "new" alone.
  .sort((a, b) => b.length - a.length);
