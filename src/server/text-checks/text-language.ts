import { eld } from 'eld/extrasmall';
import { textCheckMessages as m } from '../../shared/text-checks/text-check-messages.ts';
import type { TextCheckFailure } from './text-checks.ts';
import { textLanguages } from '../../shared/text-checks/text-languages.ts';

/**
 * The language a written text is in, to check that it is the shopper's. Detection is
 * ELD (`eld`, Apache-2.0, pure JavaScript, n-grams of 60 languages), its extra-small
 * database:
 * - On 110 short marketing texts in en, de, fr, es, it, nl, pt, sv, da, pl and ja (66
 *   subject lines of 2–6 words, 44 paragraphs) it named every one right; tinyld 1.3.4
 *   missed 3 subject lines (with its heavy data, a subject line and a paragraph) and
 *   franc-min 6.2.0 missed 26 subject lines and 5 paragraphs. ELD's larger databases
 *   named no more of them right and load slower.
 * - Detection alone takes about 30 µs a text against 150–200 µs for the other two.
 *   checkLanguage measured 45 µs a text on average, 85 µs for a paragraph of 12–30 words
 *   (Node 24, this machine). Loading the data costs about 0.3 s and 30 MB of heap once
 *   per process (ELD's large database: 1.3 s and 135 MB).
 *
 * Only a confident detection of another language fails. Subject lines are too short to
 * judge (detectors guess on a few words: "Sale ends tonight" reads as Tagalog), and a
 * product name in another language pulls the scores of an English sentence towards it.
 * The thresholds below were set on those texts, 67 harder ones (loanwords such as "Black
 * Friday Sale: Jetzt 20 % auf alles", greetings, names, Klaviyo tags), 40 in 20 more
 * languages and 180 English sentences each naming a French, Italian, Spanish, German,
 * Dutch or Scandinavian product: none of these 397 failed, while all 118 paragraphs
 * checked against another language than their own did.
 */
const detector = eld.newInstance();
const detectable = new Set(Object.values(detector.info().Languages));

/** The languages a flow may choose (src/shared/text-checks/text-languages.ts), which the detector tells apart well. */
export const supportedLanguages = textLanguages;

const namesByCode = new Map<string, string>(supportedLanguages.map(({ code, name }) => [code, name]));
const displayNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** The English name of an ISO 639-1 code ('de' → 'German'); the code itself when unknown. */
export function languageName(code: string): string {
  const normal = code.toLowerCase();
  const known = namesByCode.get(normal);
  if (known) return known;
  try {
    return displayNames.of(normal) ?? code;
  } catch {
    return code;
  }
}

/**
 * The ISO 639-1 language of a locale as browsers, Shopify and Klaviyo write it ('fr-CA' →
 * 'fr', 'pt_BR' → 'pt', 'EN' → 'en'); null when there is none or no two-letter code for it.
 */
export function languageOfLocale(locale: string | null): string | null {
  if (!locale) return null;
  try {
    const language = new Intl.Locale(locale.trim().replace(/_/g, '-')).language;
    return /^[a-z]{2}$/.test(language) ? language : null;
  } catch {
    return null;
  }
}

/**
 * Languages whose written forms are close enough that the detector mixes them up on
 * short texts, and whose readers read each other: Bokmål, Nynorsk and Danish; Croatian,
 * Serbian and Bosnian; Malay and Indonesian. Either counts as the other.
 */
const readTogether: readonly (readonly string[])[] = [
  ['no', 'nb', 'nn', 'da'],
  ['hr', 'sr', 'bs'],
  ['ms', 'id'],
];

function readersOf(language: string): readonly string[] {
  return readTogether.find((group) => group.includes(language)) ?? [language];
}

/** A subject line has 3–6 words: judging begins above that. */
const fewestWords = 7;
/** How far the detected language's score must lead the expected one's (scores run 0–1). */
const leadOnShortText = 0.1;
/** From this many words the scores settle and a smaller lead is sure (Spanish for a Portuguese reader led by 0.08). */
const settledWords = 12;
const leadOnLongerText = 0.07;

// Scripts written without spaces: two characters stand for about a word.
const unspacedScript = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}]/gu;
const spacedWord = /(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}])\p{L}){2,}/gu;

const klaviyoTag = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}/g;
const addressOrEmail = /\bhttps?:\/\/\S+|\bwww\.\S+|\S+@\S+\.\S+|(?:[\p{L}\p{N}-]+\.)+[a-z]{2,}(?:\/\S*)?/gu;
// Amounts, codes and model numbers (€89.00, SAVE20, XR500, 10:30): letters of no language.
// Latin letters only, so "5,000円以上のご注文" keeps its Japanese.
const withDigits = /[\p{Script=Latin}\p{N}]*\p{N}[\p{Script=Latin}\p{N}.,:%'’/-]*/gu;
const currencyCode = /(?<!\p{L})[A-Z]{3}(?!\p{L})/gu;

/** The words of the text that are written in some language: no tags, links, amounts or names. */
function languageBearing(text: string, names: readonly string[]): string {
  let rest = text.replace(klaviyoTag, ' ').replace(addressOrEmail, ' ');
  for (const name of names) {
    const trimmed = name.trim();
    if (trimmed.length > 1) rest = rest.replace(new RegExp(escapeRegExp(trimmed), 'giu'), ' ');
  }
  return rest.replace(withDigits, ' ').replace(currencyCode, ' ');
}

function wordCount(text: string): number {
  return (text.match(spacedWord)?.length ?? 0) + (text.match(unspacedScript)?.length ?? 0) / 2;
}

export interface LanguageCheckOptions {
  /** Product, shopper and shop names the text may use: they are in no particular language. */
  names?: readonly string[];
}

/**
 * Fails when the text is surely written in another language than `expected` (an ISO
 * 639-1 code or a locale); passes when the detector is unsure, the text is too short to
 * tell, or the expected language is one the detector does not know.
 */
export function checkLanguage(text: string, expected: string, options: LanguageCheckOptions = {}): TextCheckFailure[] {
  const wanted = languageOfLocale(expected);
  if (!wanted) return [];
  const readers = readersOf(wanted);
  if (!readers.some((language) => detectable.has(language))) return [];
  const bearing = languageBearing(text, options.names ?? []);
  const words = wordCount(bearing);
  if (words < fewestWords) return [];
  const result = detector.detect(bearing);
  const found = result.language;
  if (!found || readers.includes(found) || !result.isReliable()) return [];
  const scores = result.getScores();
  const expectedScore = Math.max(0, ...readers.map((language) => scores[language] ?? 0));
  const lead = (scores[found] ?? 0) - expectedScore;
  if (lead < (words >= settledWords ? leadOnLongerText : leadOnShortText)) return [];
  const foundName = languageName(found);
  return [{ check: 'language', found: foundName, reason: m.wrongLanguage(foundName, languageName(wanted)) }];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The language a flow's texts are written in for one event: the flow's own, or the shopper's when the event gives it; null when unknown. */
export function expectedLanguage(rules: { language: string }, event: { locale?: string | null }): string | null {
  return rules.language === 'shopper' ? languageOfLocale(event.locale ?? null) : rules.language;
}
