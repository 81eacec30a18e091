import { distinctiveLetters, functionWords, loanPhrases, nameParticles, vietnameseTones } from './language-words.ts';

/**
 * The evidence a text carries of its language without a statistical model: the scripts
 * its letters are written in, and its words that only some languages use (function
 * words, letters such as ß, ñ, ł). Pure and cheap: one pass over the text and a map
 * look-up per word.
 */

/** The languages with word lists, one bit each (fewer than 31). */
export const listedLanguages: readonly string[] = Object.keys(functionWords);
const bitOf = new Map(listedLanguages.map((language, index) => [language, 1 << index]));

const wordMasks = new Map<string, number>();
for (const [language, words] of Object.entries(functionWords)) {
  for (const word of words.split(/\s+/)) {
    if (word) wordMasks.set(word, (wordMasks.get(word) ?? 0) | bitOf.get(language)!);
  }
}
const letterMasks = new Map<string, number>();
for (const [letter, languages] of Object.entries(distinctiveLetters)) {
  letterMasks.set(letter, languages.split(' ').reduce((mask, language) => mask | bitOf.get(language)!, 0));
}
const vietnameseBit = bitOf.get('vi')!;
const spanishBit = bitOf.get('es')!;

/** The mask of the given languages that have lists (0 when none has). */
export function maskOf(languages: readonly string[]): number {
  let mask = 0;
  for (const language of languages) mask |= bitOf.get(language === 'nb' || language === 'nn' ? 'no' : language === 'ms' ? 'id' : language) ?? 0;
  return mask;
}

/**
 * A word that only some languages use: a function word (weight 1), a word with a letter
 * only they write (½; a Cyrillic one 2), either as part of a name (¼).
 */
export interface WordEvidence {
  mask: number;
  weight: number;
  functionWord: boolean;
}

/**
 * How strongly a word that is probably part of a name counts: a lowercase particle inside
 * a capitalised name (Crème de la Mer), or any capitalised word of a text in title case
 * (Hasta La Vista Sale), where names and words cannot be told apart.
 */
const nameLike = 0.25;
const letterWeight = 0.5;
const cyrillicLetterWeight = 2;
const cyrillic = /\p{Script=Cyrillic}/u;

const loanPattern = new RegExp(
  `(?<![\\p{L}\\p{M}])(?:${loanPhrases.map((phrase) => phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ -]/g, '[\\s-]+').replace(/'/g, "['’]")).join('|')})(?![\\p{L}\\p{M}])`,
  'giu',
);

/** The text without phrases borrowed whole from another language ("Black Friday", "à la carte"). */
export function withoutLoanPhrases(text: string): string {
  return text.replace(loanPattern, ' ');
}

const wordPattern = /[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*['’]?/gu;
const nonAscii = /[^\p{ASCII}]/u;
const capitalised = /^\p{Lu}/u;

/**
 * The words of a text (without loan phrases) that point to some languages, in order.
 * `titleCase`: whether the text, loan phrases included, is in title case (inTitleCase).
 */
export function wordEvidence(text: string, titleCase: boolean): WordEvidence[] {
  const found: WordEvidence[] = [];
  const lower = text.toLowerCase().replace(/’/g, "'");
  // Lowercasing keeps the length but for a few letters (İ); then positions are not compared.
  const sameLength = lower.length === text.length;
  const matches = [...lower.matchAll(wordPattern)];
  for (let index = 0; index < matches.length; index++) {
    const match = matches[index]!;
    const word = match[0];
    const start = match.index;
    const end = start + word.length;
    // A letter joined by a hyphen (e-mail, T-shirt) is no word of its own.
    if (word.length === 1 && (lower[start - 1] === '-' || lower[end] === '-')) continue;
    let mask = wordMasks.get(word);
    if (mask === undefined && word.includes("'")) {
      const elided = word.slice(0, word.indexOf("'") + 1);
      mask = wordMasks.get(elided) ?? (word.endsWith("'") ? wordMasks.get(word.slice(0, -1)) : undefined);
    }
    if (mask !== undefined) {
      const inName = sameLength && ((titleCase && capitalised.test(text[start]!)) || (nameParticles.has(word) && betweenCapitals(text, matches, index)));
      found.push({ mask, weight: inName ? nameLike : 1, functionWord: true });
      continue;
    }
    if (!nonAscii.test(word)) continue;
    let letters = -1;
    for (const letter of word) {
      const languages = letterMasks.get(letter);
      if (languages !== undefined) letters &= languages;
    }
    if (vietnameseTones.test(word)) letters = letters === -1 ? vietnameseBit : letters & vietnameseBit;
    if (letters === -1 || letters === 0) continue;
    // Cyrillic letters of one language alone (ы, і, є…) prove it: names are written in the reader's alphabet.
    if (cyrillic.test(word)) found.push({ mask: letters, weight: cyrillicLetterWeight, functionWord: true });
    else found.push({ mask: letters, weight: titleCase && sameLength && capitalised.test(text[start]!) ? nameLike : letterWeight, functionWord: false });
  }
  // ¿ and ¡ open only Spanish sentences.
  if (text.includes('¿') || text.includes('¡')) found.push({ mask: spanishBit, weight: letterWeight, functionWord: false });
  return found;
}

/** Whether every word of four letters or more is capitalised, and there are two such at least (Your Cart Is Waiting, Tutti Frutti Ice Pops). */
export function inTitleCase(text: string): boolean {
  let long = 0;
  for (const match of text.matchAll(wordPattern)) {
    if (match[0].length < 4) continue;
    if (!capitalised.test(match[0])) return false;
    long++;
  }
  return long >= 2;
}

/** Whether the word at `index` stands between two capitalised words, with only spaces between (Crème de la Mer). */
function betweenCapitals(text: string, matches: readonly RegExpExecArray[], index: number): boolean {
  const previous = matches[index - 1];
  const next = matches[index + 1];
  if (!previous || !next) return false;
  const start = matches[index]!.index;
  const end = start + matches[index]![0].length;
  const previousEnd = previous.index + previous[0].length;
  return (
    capitalised.test(text.slice(previous.index, previous.index + 1)) &&
    capitalised.test(text.slice(next.index, next.index + 1)) &&
    /^\s+$/.test(text.slice(previousEnd, start)) &&
    /^\s+$/.test(text.slice(end, next.index))
  );
}

/** What the words say about one other language against the expected ones. */
export interface Contrast {
  language: string;
  /** Function words of `language` the expected languages lack. */
  foreignWords: number;
  /** Words with letters of `language` the expected languages do not write. */
  foreignLetters: number;
  /** Words of the expected languages that `language` lacks. */
  expectedOnly: number;
}

/** Each listed language that some word points to, other than the expected ones, against them. */
export function contrasts(evidence: readonly WordEvidence[], expectedMask: number): Contrast[] {
  let seen = 0;
  for (const word of evidence) seen |= word.mask;
  seen &= ~expectedMask;
  const result: Contrast[] = [];
  for (let index = 0; index < listedLanguages.length; index++) {
    const bit = 1 << index;
    if ((seen & bit) === 0) continue;
    let foreignWords = 0;
    let foreignLetters = 0;
    let expectedOnly = 0;
    for (const word of evidence) {
      const inForeign = (word.mask & bit) !== 0;
      const inExpected = (word.mask & expectedMask) !== 0;
      if (inForeign && !inExpected) {
        if (word.functionWord) foreignWords += word.weight;
        else foreignLetters += word.weight;
      } else if (inExpected && !inForeign) expectedOnly += word.weight;
    }
    result.push({ language: listedLanguages[index]!, foreignWords, foreignLetters, expectedOnly });
  }
  return result;
}

// Scripts, in word-sized units: a spaced script's run of letters is about a word, two
// characters of a script written without spaces are. Classified by code-point ranges (a
// regular expression of Unicode script properties cost several times as much).
interface Script {
  name: string;
  ranges: readonly (readonly [number, number])[];
  spaced: boolean;
  /** The language a text in this script is in, when the script has about one. */
  language?: string;
}

const scripts: readonly Script[] = [
  { name: 'Latin', ranges: [[0x41, 0x5a], [0x61, 0x7a], [0xc0, 0xd6], [0xd8, 0xf6], [0xf8, 0x2af], [0x1e00, 0x1eff], [0xff21, 0xff3a], [0xff41, 0xff5a]], spaced: true },
  { name: 'Cyrillic', ranges: [[0x400, 0x52f]], spaced: true },
  { name: 'Greek', ranges: [[0x370, 0x3ff], [0x1f00, 0x1fff]], spaced: true, language: 'el' },
  { name: 'Armenian', ranges: [[0x531, 0x58f]], spaced: true, language: 'hy' },
  { name: 'Hebrew', ranges: [[0x591, 0x5ff], [0xfb1d, 0xfb4f]], spaced: true, language: 'he' },
  { name: 'Arabic', ranges: [[0x620, 0x64a], [0x66e, 0x6d3], [0x6fa, 0x6ff], [0x750, 0x77f], [0xfb50, 0xfdff], [0xfe70, 0xfeff]], spaced: true, language: 'ar' },
  { name: 'Devanagari', ranges: [[0x900, 0x963], [0x971, 0x97f]], spaced: true, language: 'hi' },
  { name: 'Bengali', ranges: [[0x980, 0x9e5]], spaced: true, language: 'bn' },
  { name: 'Gurmukhi', ranges: [[0xa00, 0xa65]], spaced: true, language: 'pa' },
  { name: 'Gujarati', ranges: [[0xa80, 0xae5]], spaced: true, language: 'gu' },
  { name: 'Oriya', ranges: [[0xb00, 0xb65]], spaced: true, language: 'or' },
  { name: 'Tamil', ranges: [[0xb80, 0xbe5]], spaced: true, language: 'ta' },
  { name: 'Telugu', ranges: [[0xc00, 0xc65]], spaced: true, language: 'te' },
  { name: 'Kannada', ranges: [[0xc80, 0xce5]], spaced: true, language: 'kn' },
  { name: 'Malayalam', ranges: [[0xd00, 0xd65]], spaced: true, language: 'ml' },
  { name: 'Thai', ranges: [[0xe01, 0xe4e]], spaced: false, language: 'th' },
  { name: 'Lao', ranges: [[0xe81, 0xecd]], spaced: false, language: 'lo' },
  { name: 'Georgian', ranges: [[0x10a0, 0x10ff]], spaced: true, language: 'ka' },
  { name: 'Hangul', ranges: [[0x1100, 0x11ff], [0x3131, 0x318e], [0xac00, 0xd7a3]], spaced: true, language: 'ko' },
  { name: 'Ethiopic', ranges: [[0x1200, 0x137c]], spaced: true, language: 'am' },
  { name: 'Kana', ranges: [[0x3041, 0x309f], [0x30a1, 0x30ff], [0x31f0, 0x31ff], [0xff66, 0xff9d]], spaced: false, language: 'ja' },
  { name: 'Han', ranges: [[0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xf900, 0xfaff], [0x20000, 0x3134f]], spaced: false, language: 'zh' },
];
const latin = 0;
const kanaIndex = scripts.findIndex((script) => script.name === 'Kana');
const hanIndex = scripts.findIndex((script) => script.name === 'Han');

/** The index in `scripts` of a code point's script; -1 for what is no letter, -2 for a combining mark (it continues a run). */
function scriptIndex(code: number): number {
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) ? latin : -1;
  if (code >= 0x300 && code <= 0x36f) return -2;
  for (let index = 0; index < scripts.length; index++) {
    for (const [from, to] of scripts[index]!.ranges) if (code >= from && code <= to) return index;
  }
  return -1;
}

/** The scripts each language is written in, where it is not Latin alone. */
const scriptsOfLanguage: Readonly<Record<string, readonly string[]>> = {
  ru: ['Cyrillic'],
  uk: ['Cyrillic'],
  bg: ['Cyrillic'],
  be: ['Cyrillic'],
  mk: ['Cyrillic'],
  kk: ['Cyrillic'],
  sr: ['Cyrillic', 'Latin'],
  el: ['Greek'],
  ar: ['Arabic'],
  fa: ['Arabic'],
  ur: ['Arabic'],
  ku: ['Latin', 'Arabic'],
  he: ['Hebrew'],
  yi: ['Hebrew'],
  ja: ['Kana', 'Han'],
  zh: ['Han'],
  ko: ['Hangul'],
  th: ['Thai'],
  lo: ['Lao'],
  hi: ['Devanagari'],
  mr: ['Devanagari'],
  ne: ['Devanagari'],
  bn: ['Bengali'],
  pa: ['Gurmukhi'],
  gu: ['Gujarati'],
  or: ['Oriya'],
  ta: ['Tamil'],
  te: ['Telugu'],
  kn: ['Kannada'],
  ml: ['Malayalam'],
  ka: ['Georgian'],
  hy: ['Armenian'],
  am: ['Ethiopic'],
};

/** The scripts a language is written in (Latin for any language not named above). */
export function scriptsOf(language: string): readonly string[] {
  return scriptsOfLanguage[language] ?? ['Latin'];
}

/** Word-sized units of each script in the text, and the characters of Kana and Han. */
export interface ScriptCount {
  units: Map<string, number>;
  kana: number;
  han: number;
}

export function scriptCount(text: string): ScriptCount {
  const units = new Map<string, number>();
  let kana = 0;
  let han = 0;
  let current = -1;
  for (const character of text) {
    const index = scriptIndex(character.codePointAt(0)!);
    if (index === -2) continue;
    if (index === -1) {
      current = -1;
      continue;
    }
    const script = scripts[index]!;
    if (!script.spaced) {
      if (index === kanaIndex) kana++;
      else if (index === hanIndex) han++;
      units.set(script.name, (units.get(script.name) ?? 0) + 0.5);
    } else if (index !== current) units.set(script.name, (units.get(script.name) ?? 0) + 1);
    current = index;
  }
  return { units, kana, han };
}

/** The language a run of one script alone names (Greek → el), if any. */
export function languageOfScript(script: string): string | undefined {
  return scripts.find((candidate) => candidate.name === script)?.language;
}

// Words Chinese writes and Japanese does not (pronouns, particles, simplified forms).
const chineseOnly =
  /[你您们們这這吗嗎呢吧么麼沒还给让讓说說话为个发發现开关關务单單费请谢货买卖邮满滿减专專运后剩选购热优惠车钱对欢领预订价價库仅僅东禮爱员积抢杀节帮马长门问题应應动體实實样樣线经經结约红级纪计认记识语该过进边邊达來]/gu;
/** Characters of a Han-only text that only Chinese writes. */
export function chineseMarks(text: string): number {
  return text.match(chineseOnly)?.length ?? 0;
}

// Persian and Urdu add letters to the Arabic alphabet.
const persianLetters = /[پچژگکی]/u;
const urduLetters = /[ٹڈڑںےھ]/u;
/** The language of a text in Arabic script: Urdu or Persian by their letters, else Arabic. */
export function arabicScriptLanguage(text: string): string {
  if (urduLetters.test(text)) return 'ur';
  if (persianLetters.test(text)) return 'fa';
  return 'ar';
}

/**
 * Whether the expected languages' words outnumber every other listed language's by two
 * words at least (words of the expected languages that language lacks): the text is theirs
 * whatever a detector would read in it.
 */
export function outweighsEveryOther(evidence: readonly WordEvidence[], expectedMask: number): boolean {
  if (expectedMask === 0) return false;
  for (let index = 0; index < listedLanguages.length; index++) {
    const bit = 1 << index;
    if ((expectedMask & bit) !== 0) continue;
    let expectedOnly = 0;
    for (const word of evidence) {
      if ((word.mask & expectedMask) !== 0 && (word.mask & bit) === 0) expectedOnly += word.weight;
    }
    if (expectedOnly < 2) return false;
  }
  return true;
}
