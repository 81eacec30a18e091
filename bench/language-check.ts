/**
 * `npm run bench:language`: the language check (src/server/text-checks/text-language.ts) on
 * the labelled corpus of short marketing texts (test/fixtures/language-corpus/). Every text
 * is checked against its own language (right-language: it must pass) and against every
 * other language of the corpus (wrong-language: it must fail), without product names given.
 *
 * Prints the share of wrong-language texts caught (five words or more: target ≥ 95 %; three
 * or four words: target ≥ 80 %), of right-language texts refused (target ≤ 1 %), of English
 * texts naming foreign products, places and people refused, the figures per language, the
 * average time of one check, and a PASS/FAIL line per target; exits with 1 when a target is
 * missed. `-- --misses` lists every wrong-language check that passed.
 */
import { checkLanguage, languageName } from '../src/server/text-checks/text-language.ts';
import {
  languageCheckTargets,
  loadLanguageCorpus,
  measureLanguageCheck,
  percent,
  targetMet,
  type LanguageJudge,
  type Share,
} from '../test/fixtures/language-corpus/corpus.ts';

const corpus = loadLanguageCorpus();
const names = new Map<string, string>();
const judge: LanguageJudge = (text, expected) => {
  const found = checkLanguage(text, expected)[0]?.found;
  if (found === undefined) return null;
  // checkLanguage names the language in English; the corpus labels it by code.
  if (!names.has(found)) names.set(found, [...new Set(corpus.map((item) => item.language))].find((code) => languageName(code) === found) ?? found);
  return names.get(found)!;
};

// Warm up (the detector's tables, the regular expressions), then time every check of a full run.
measureLanguageCheck(corpus, judge);
const started = process.hrtime.bigint();
const figures = measureLanguageCheck(corpus, judge);
const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
const heldOut = measureLanguageCheck(
  corpus.filter((item) => item.set === 'held-out'),
  judge,
  [...figures.perLanguage.keys()],
);
// The delivery pipeline's usual case: a text in its reader's language.
const rounds = 20;
const rightStarted = process.hrtime.bigint();
for (let round = 0; round < rounds; round++) for (const item of corpus) checkLanguage(item.text, item.language);
const rightMicroseconds = Number(process.hrtime.bigint() - rightStarted) / 1e3 / (rounds * corpus.length);

const show = (share: Share) => `${percent(share).toFixed(1).padStart(5)} % (${share.hits} of ${share.of})`;
const languages = [...figures.perLanguage.keys()];
const byCategory = new Map<string, number>();
for (const item of corpus) byCategory.set(item.category, (byCategory.get(item.category) ?? 0) + 1);

console.log(`\nLanguage check on ${corpus.length} texts in ${languages.length} languages (${languages.join(', ')})`);
console.log(`  ${[...byCategory].map(([category, count]) => `${count} ${category}`).join(', ')}; ${figures.checks} checks`);
console.log(`  wrong language caught, ≥ 5 words      ${show(figures.wrongFiveOrMore)}`);
console.log(`  wrong language caught, 3–4 words      ${show(figures.wrongThreeOrFour)}`);
console.log(`    of which against a language of the same script: ≥ 5 words ${show(figures.sameScriptFiveOrMore)}, 3–4 words ${show(figures.sameScriptThreeOrFour)}`);
console.log(`  failed checks naming the text's language ${show(figures.namedRight)}`);
console.log(`  right language refused                ${show(figures.rightRefused)}`);
console.log(`  English with foreign names refused    ${show(figures.foreignNamesRefused)}`);
console.log(`  time per check                        ${((elapsedMs * 1000) / figures.checks).toFixed(1)} µs on average (${figures.checks} checks in ${elapsedMs.toFixed(0)} ms); a text in its reader's language ${rightMicroseconds.toFixed(1)} µs`);

const heldOutCount = corpus.filter((item) => item.set === 'held-out').length;
console.log(`\n  held out (${heldOutCount} texts written after the rules were last changed, included above):`);
console.log(`  wrong language caught, ≥ 5 words      ${show(heldOut.wrongFiveOrMore)}`);
console.log(`  wrong language caught, 3–4 words      ${show(heldOut.wrongThreeOrFour)}`);
console.log(`    of which against a language of the same script: ≥ 5 words ${show(heldOut.sameScriptFiveOrMore)}, 3–4 words ${show(heldOut.sameScriptThreeOrFour)}`);
console.log(`  right language refused                ${show(heldOut.rightRefused)}`);
console.log(`  English with foreign names refused    ${show(heldOut.foreignNamesRefused)}`);

console.log('\n  per language         wrong caught (as the text)        right refused');
for (const [language, own] of figures.perLanguage) {
  console.log(`  ${language.padEnd(4)} ${languageName(language).padEnd(12)} ${show(own.wrongCaught).padEnd(30)}  ${show(own.rightRefused)}`);
}

if (figures.refusals.length > 0) {
  console.log('\n  right-language texts refused:');
  for (const refusal of figures.refusals) console.log(`    [${refusal.language} → ${refusal.found}] ${refusal.text}`);
}
if (process.argv.includes('--misses')) {
  console.log('\n  wrong-language checks that passed:');
  for (const miss of figures.misses) console.log(`    [${miss.language} for ${miss.expected}] ${miss.text}`);
}

console.log('');
let missed = false;
for (const target of languageCheckTargets) {
  const met = targetMet(target, figures);
  missed ||= !met;
  console.log(`  ${met ? 'PASS' : 'FAIL'}  ${target.name}: ${target.figure(figures).toFixed(1)} % (target ${target.atLeast ? '≥' : '≤'} ${target.at} %)`);
}
process.exitCode = missed ? 1 : 0;
