import { eld } from 'eld/extrasmall';
import { textCheckMessages as m } from '../../shared/text-checks/text-check-messages.ts';
import type { TextCheckFailure } from './text-checks.ts';
import {
  arabicScriptLanguage,
  chineseMarks,
  contrasts,
  inTitleCase,
  languageOfScript,
  maskOf,
  outweighsEveryOther,
  scriptCount,
  scriptsOf,
  withoutLoanPhrases,
  wordEvidence,
  type Contrast,
} from './language-evidence.ts';
import { textLanguages } from '../../shared/text-checks/text-languages.ts';

/**
 * The language a written text is in, to check that it is the shopper's. Subject lines and
 * preview texts of three to six words are where a text in the wrong language shows first,
 * and where an n-gram detector alone cannot be trusted ("Sale ends tonight" reads as
 * Tagalog, "Hasta La Vista Sale" as Spanish). So the check weighs what a short text does
 * carry (decision 0044), most certain first:
 * 1. Script (`language-evidence.ts`): a text mostly in a script the expected language is
 *    not written in (Cyrillic for a German reader, Kana for a Chinese one) is that
 *    script's language; Latin for a reader of another script only when its words name a
 *    language ("BLACK FRIDAY SALE 開催中" passes a Japanese reader).
 * 2. Words (`language-words.ts`): function words (articles, pronouns, prepositions,
 *    conjunctions, the commonest verbs and adverbs) and letters only some languages write
 *    (ß, ñ, ł, ø, ő; Cyrillic ы against і). A word of the expected language that the other
 *    lacks keeps the text: English naming a foreign product ("Your Chamonix Merino Pullover
 *    is waiting", "Back in stock: the Bella Napoli espresso set") passes. With none, two
 *    words of another language, one a function word, fail it ("Dein Warenkorb wartet auf
 *    dich"); one, or two with its letters, fail it only when the detector reads that
 *    language too, 0.1 ahead of the expected one. Names given are taken out first; phrases borrowed whole
 *    ("Black Friday", "Shop the Look", "à la carte") prove nothing; in a title-case text
 *    every capitalised word may be a name and counts a quarter.
 * 3. The detector, ELD (`eld`, Apache-2.0, pure JavaScript, n-grams of 60 languages, its
 *    extra-small database; on short marketing texts it named more right than tinyld and
 *    franc-min, in about 30 µs against 150–200), alone from seven words: it must be sure
 *    and lead the expected language by 0.1 (0.07 from twelve words), and a language with
 *    a word list must show some of its words. Two words of the expected language more
 *    than of any other skip it.
 * Languages read together (Danish and Norwegian, Croatian and Serbian, Malay and
 * Indonesian) count as each other; a language without a word list is judged by script
 * and detector only; one the detector does not know passes. When unsure, the text passes:
 * a refusal costs the owner a text.
 *
 * Measured by `npm run bench:language` on test/fixtures/language-corpus (719 short
 * marketing texts of 3–12 words in 22 languages, 100 of them English naming foreign
 * products, places and people; each checked against its own language and the 21 others):
 * a text in another language is caught at 97.6 % from five words and 94.5 % at three or
 * four (96.2 % and 91.1 % against a language of the same script), no text in its own
 * language is refused, and 99.1 % of the failures name the text's language. The 148 texts
 * held out from the rules' adjustment score 97.3 %, 95.3 % and no refusal. A check takes
 * about 25 µs on average (Node 24, a busy two-core machine): 8–10 µs for a subject line
 * its words settle, about 30 µs for a paragraph; loading the detector's data costs about
 * 0.3 s and 30 MB of heap once per process.
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
  const known = localeLanguages.get(locale);
  if (known !== undefined) return known;
  let language: string | null;
  try {
    const parsed = new Intl.Locale(locale.trim().replace(/_/g, '-')).language;
    language = /^[a-z]{2}$/.test(parsed) ? parsed : null;
  } catch {
    language = null;
  }
  // Parsing a locale costs more than the rest of a check; a shop's shoppers use a few dozen.
  if (localeLanguages.size >= 1_000) localeLanguages.clear();
  localeLanguages.set(locale, language);
  return language;
}
const localeLanguages = new Map<string, string | null>();

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

/** From this many words the n-gram detector's scores mean something (a subject line has 3–6). */
const detectorWords = 7;
/** How far the detected language's score must lead the expected one's (scores run 0–1). */
const leadOnShortText = 0.1;
/** From this many words the scores settle and a smaller lead is sure (Spanish for a Portuguese reader led by 0.08). */
const settledWords = 12;
const leadOnLongerText = 0.07;
/** Function words of another language, and no word of the expected one, that make a text of any length that language. */
const foreignWordsNeeded = 1;
const foreignEvidenceNeeded = 2;
/** Less evidence than that (a function word, two words with letters of that language) needs the detector's agreement. */
const evidenceForDetector = 1;
/** Words in another script that make a text that script's language… */
const foreignScriptUnits = 2;
/** …and outnumber them twice: "The North Face 新作入荷" is Japanese enough for a Japanese reader. */
const foreignScriptShare = 2;

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
 * 639-1 code or a locale); passes when the evidence is thin or mixed, or the expected
 * language is one the detector does not know.
 */
export function checkLanguage(text: string, expected: string, options: LanguageCheckOptions = {}): TextCheckFailure[] {
  const wanted = languageOfLocale(expected);
  if (!wanted) return [];
  const readers = readersOf(wanted);
  if (!readers.some((language) => detectable.has(language))) return [];
  const found = languageFound(languageBearing(text, options.names ?? []), readers);
  if (!found) return [];
  const foundName = languageName(found);
  return [{ check: 'language', found: foundName, reason: m.wrongLanguage(foundName, languageName(wanted)) }];
}

/** The language the text is surely written in when it is none of `readers`; null when it may be theirs. */
function languageFound(bearing: string, readers: readonly string[]): string | null {
  const plain = withoutLoanPhrases(bearing);
  const expectedMask = maskOf(readers);
  const evidence = wordEvidence(plain, inTitleCase(bearing));
  const against = contrasts(evidence, expectedMask).filter((contrast) => !readers.includes(contrast.language));
  let detected: LanguageResult | undefined;
  const detect = () => (detected ??= detector.detect(plain));

  const byScript = languageOfForeignScript(plain, readers, against, detect);
  if (byScript) return readers.includes(byScript) ? null : byScript;
  // Without a list of the expected language's words, words prove nothing against it.
  if (expectedMask === 0) return languageDetected(plain, readers, against, detect);

  // Words of another language and none of the expected one's: sure when there are enough,
  // else when the detector reads that language too, well ahead of the expected one.
  const unopposed = against.filter((contrast) => contrast.expectedOnly === 0 && evidenceFor(contrast) >= evidenceForDetector);
  const sure = unopposed.filter(isSure);
  if (sure.length > 0) return strongest(sure, detect);
  if (unopposed.length > 0) {
    const result = detect();
    const agreeing = unopposed.filter((contrast) => contrast.language === listName(result.language));
    if (agreeing.length > 0 && result.isReliable() && leadOver(result, readers) >= leadOnShortText) return agreeing[0]!.language;
  }

  if (outweighsEveryOther(evidence, expectedMask)) return null;
  return languageDetected(plain, readers, against, detect);
}

/**
 * The detector's language for a text long enough to read, when it leads the expected ones
 * clearly and the words do not say otherwise.
 */
function languageDetected(plain: string, readers: readonly string[], against: readonly Contrast[], detect: () => LanguageResult): string | null {
  const words = wordCount(plain);
  if (words < detectorWords) return null;
  const result = detect();
  const found = result.language;
  if (!found || readers.includes(found) || !result.isReliable()) return null;
  if (leadOver(result, readers) < (words >= settledWords ? leadOnLongerText : leadOnShortText)) return null;
  if (maskOf([found]) === 0) return found;
  // A text of seven words in a language with a word list shows some of them; and the
  // expected language's own words may outweigh what the detector read.
  const contrast = against.find((candidate) => candidate.language === listName(found));
  if (!contrast || (contrast.expectedOnly >= 2 && contrast.expectedOnly >= evidenceFor(contrast))) return null;
  return found;
}

function evidenceFor(contrast: Contrast): number {
  return contrast.foreignWords + contrast.foreignLetters;
}

function isSure(contrast: Contrast): boolean {
  return contrast.foreignWords >= foreignWordsNeeded && evidenceFor(contrast) >= foreignEvidenceNeeded;
}

/** How far the detected language's score leads the best of the expected ones (scores run 0–1). */
function leadOver(result: LanguageResult, readers: readonly string[]): number {
  const scores = result.getScores();
  return (scores[result.language] ?? 0) - Math.max(0, ...readers.map((language) => scores[language] ?? 0));
}

type LanguageResult = ReturnType<typeof detector.detect>;

/** The name of a language in the word lists (the detector's "ms" is the lists' "id"). */
function listName(language: string): string {
  return language === 'ms' ? 'id' : language === 'nb' || language === 'nn' ? 'no' : language;
}

/** The candidate with the most evidence; among equals, the one the detector scores highest. */
function strongest(candidates: readonly Contrast[], detect: () => LanguageResult): string {
  const best = Math.max(...candidates.map(evidenceFor));
  const tied = candidates.filter((contrast) => evidenceFor(contrast) === best);
  if (tied.length === 1) return tied[0]!.language;
  const scores = detect().getScores();
  const detectorScore = (language: string) => scores[language === 'id' ? 'ms' : language] ?? 0;
  return tied.reduce((winner, contrast) => (detectorScore(contrast.language) > detectorScore(winner.language) ? contrast : winner)).language;
}

/**
 * The language of a text written mostly in a script the expected language does not use
 * (Cyrillic for a German reader, Latin for a Japanese one); undefined when its script is
 * the expected one's or the evidence does not name a language.
 */
function languageOfForeignScript(plain: string, readers: readonly string[], against: readonly Contrast[], detect: () => LanguageResult): string | undefined {
  const { units, kana, han } = scriptCount(plain);
  const expectedScripts = new Set(readers.flatMap(scriptsOf));
  // Japanese writes Han too: a text of Han alone is Chinese for a Japanese reader only by Chinese words.
  if (readers.includes('ja') && kana === 0 && han >= 4 && chineseMarks(plain) >= 2) return 'zh';
  if (readers.includes('zh') && kana >= 2) return 'ja';
  // Japanese is written in Kana and Han together.
  const japanese = kana > 0 && !expectedScripts.has('Kana') && !expectedScripts.has('Han');
  if (japanese) {
    units.set('Kana', (units.get('Kana') ?? 0) + (units.get('Han') ?? 0));
    units.delete('Han');
  }
  let expectedUnits = 0;
  let foreign: string | undefined;
  let foreignUnits = 0;
  for (const [script, count] of units) {
    if (expectedScripts.has(script)) expectedUnits += count;
    else if (count > foreignUnits) {
      foreign = script;
      foreignUnits = count;
    }
  }
  if (!foreign || foreignUnits < foreignScriptUnits || foreignUnits < foreignScriptShare * expectedUnits) return undefined;
  if (foreign === 'Han' || foreign === 'Kana') return kana > 0 ? 'ja' : 'zh';
  if (foreign === 'Arabic') return arabicScriptLanguage(plain);
  const single = languageOfScript(foreign);
  if (single) return single;
  const ofScript = (language: string) => scriptsOf(language).includes(foreign);
  if (foreign === 'Latin') {
    // Latin letters in a text for a reader of another script are often brands and loanwords
    // (BLACK FRIDAY SALE): only a language's words, or the detector agreeing with some, tell.
    const some = against.filter((contrast) => ofScript(contrast.language) && evidenceFor(contrast) >= evidenceForDetector);
    const sure = some.filter(isSure);
    if (sure.length > 0) return strongest(sure, detect);
    const result = detect();
    const agreeing = some.filter((contrast) => contrast.language === listName(result.language));
    return agreeing.length > 0 && result.isReliable() ? agreeing[0]!.language : undefined;
  }
  // Cyrillic: which of its languages, by its words, else by the detector.
  const wordsOfScript = against.filter((contrast) => ofScript(contrast.language) && evidenceFor(contrast) > 0);
  if (wordsOfScript.length > 0) return strongest(wordsOfScript, detect);
  const scores = detect().getScores();
  const byDetector = Object.keys(scores).find((language) => ofScript(language));
  return byDetector ?? 'ru';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The language a flow's texts are written in for one event: the flow's own, or the shopper's when the event gives it; null when unknown. */
export function expectedLanguage(rules: { language: string }, event: { locale?: string | null }): string | null {
  return rules.language === 'shopper' ? languageOfLocale(event.locale ?? null) : rules.language;
}
