import { describe, expect, it } from 'vitest';
import { checkLanguage, languageName, languageOfLocale, supportedLanguages } from '../../src/server/text-checks/text-language.ts';
import { textCheckMessages as m } from '../../src/shared/text-checks/text-check-messages.ts';
import { languageCheckTargets, loadLanguageCorpus, measureLanguageCheck, percent, targetMet } from '../fixtures/language-corpus/corpus.ts';

const foundIn = (text: string, expected: string, names: readonly string[] = []) => checkLanguage(text, expected, { names }).map((failure) => failure.found);

const englishTexts = [
  'Your cart misses you',
  'Hi Ada, you left a few things in your cart. They are still waiting for you, but stock is limited, so finish your order today.',
  'Thanks for your order! We are packing it with care and will let you know as soon as it ships.',
  "Hi {{ first_name|default:'there' }}, your cart is waiting. Use {% coupon_code 'WELCOME' %} for 10% off at https://shop.example/cart.",
];

describe("the shopper's language", () => {
  it('reads the language of a locale however it is written, and nothing from what is not one', () => {
    expect(['fr-CA', 'pt_BR', 'EN', 'de', 'zh-Hant-TW', ' sv-SE '].map(languageOfLocale)).toEqual(['fr', 'pt', 'en', 'de', 'zh', 'sv']);
    expect([null, '', 'x', 'english', '12-34', 'fil-PH', 'und'].map(languageOfLocale)).toEqual([null, null, null, null, null, null, null]);
  });

  it('names languages in English, the supported ones and any other code', () => {
    expect(languageName('de')).toBe('German');
    expect(languageName('PT')).toBe('Portuguese');
    expect(languageName('is')).toBe('Icelandic');
    expect(supportedLanguages.length).toBeGreaterThanOrEqual(20);
    expect(new Set(supportedLanguages.map((language) => language.code)).size).toBe(supportedLanguages.length);
  });
});

describe('checking that a text is in the expected language', () => {
  it('passes English texts, with their placeholders, links and amounts, when English is expected', () => {
    for (const text of englishTexts) expect(foundIn(text, 'en'), text).toEqual([]);
    expect(foundIn(englishTexts[1]!, 'en-GB')).toEqual([]);
  });

  it("fails a paragraph in another language and names it, in the event log's words", () => {
    const german = 'Hallo Ada, in deinem Warenkorb liegen noch ein paar Artikel. Sie warten auf dich, aber der Vorrat ist begrenzt, also schließe deine Bestellung noch heute ab.';
    expect(checkLanguage(german, 'en')).toEqual([{ check: 'language', found: 'German', reason: m.wrongLanguage('German', 'English') }]);
    expect(foundIn('Bonjour Ada, vous avez laissé quelques articles dans votre panier. Ils vous attendent encore, mais le stock est limité.', 'en')).toEqual(['French']);
    expect(foundIn('Hola Ada, dejaste algunos productos en tu carrito. Todavía te esperan, pero las existencias son limitadas.', 'en')).toEqual(['Spanish']);
    expect(foundIn(englishTexts[2]!, 'de')).toEqual(['English']);
    expect(foundIn('ご注文ありがとうございます！丁寧に梱包し、発送次第お知らせいたします。', 'en')).toEqual(['Japanese']);
  });

  it('passes a short English subject line, whatever the detector guesses for it, and judges a short one in another language', () => {
    // Detected alone, the first two read as Tagalog and Dutch, and "Hi Ada" as Catalan.
    for (const text of ['Sale ends tonight', 'Mega Weekend Sale', 'Psst… 20% off', 'Last Call', 'Hi Ada', 'Your Crème de la Mer awaits']) {
      expect(foundIn(text, 'en'), text).toEqual([]);
    }
    // Short texts are judged by their words now (decision 0044): this one was let through before.
    expect(foundIn('Dein Warenkorb wartet auf dich', 'en')).toEqual(['German']);
  });

  it('passes a text written in the expected language, English loanwords and product names included', () => {
    const texts: Array<[string, string]> = [
      ['de', 'Black Friday Sale: Jetzt 20 % auf alles, nur bis Sonntag und solange der Vorrat reicht.'],
      ['fr', 'Bonjour Ada, votre Alpine Trail Jacket est toujours dans votre panier. Commandez avant qu’elle ne soit épuisée.'],
      ['es', '¡Gracias por tu pedido! Lo estamos preparando con cuidado y te avisaremos en cuanto salga.'],
      ['pl', 'Cześć Ada, zostawiłaś kilka produktów w koszyku. Nadal na Ciebie czekają, ale zapasy są ograniczone.'],
      ['ja', 'こんにちは、Adaさん。カートにいくつかの商品が残っています。今すぐ購入を完了して、5,000円以上のご注文で送料無料をお楽しみください。'],
      ['pt-BR', 'Olá Ada, você deixou alguns itens no seu carrinho. Eles ainda estão esperando por você, então finalize seu pedido hoje.'],
    ];
    for (const [language, text] of texts) expect(foundIn(text, language), text).toEqual([]);
  });

  it('passes an English sentence that names a product in French, and takes the names it is given out first', () => {
    const text = 'Ada, the Sac Voyage Élégance you picked is almost sold out, so grab it before the weekend.';
    expect(foundIn(text, 'en')).toEqual([]);
    expect(foundIn('Your Crème de la Mer Moisturiser is waiting in your cart.', 'en')).toEqual([]);
    // The same product in a French frame is French whatever the name.
    expect(foundIn('Votre Sac Voyage Élégance vous attend toujours dans votre panier, commandez-le vite.', 'en', ['Sac Voyage Élégance'])).toEqual(['French']);
  });

  it('counts languages whose readers read each other as one, and passes a language the detector does not know', () => {
    const norwegian = 'Hei Ada, du har glemt noen varer i handlekurven. De venter fortsatt på deg, så fullfør bestillingen din i dag.';
    expect(foundIn(norwegian, 'nb')).toEqual([]);
    expect(foundIn(norwegian, 'da')).toEqual([]);
    expect(foundIn(englishTexts[1]!, 'ga')).toEqual([]);
    expect(foundIn(englishTexts[1]!, 'not a locale')).toEqual([]);
  });

  it('fails a text whose every word in a language is the wrong one, however many placeholders it has', () => {
    const text = "Bonjour {{ first_name }}, votre Alpine Trail Jacket vous attend. Utilisez {% coupon_code 'WELCOME' %} avant dimanche, https://shop.example/cart.";
    expect(foundIn(text, 'en', ['Alpine Trail Jacket'])).toEqual(['French']);
  });
});

describe('judging the language of short texts (decision 0044)', () => {
  it('fails a German text of six words for an English reader, in the event log\'s words', () => {
    for (const text of ['Ihr Warenkorb wartet noch auf Sie', 'Für Sie reserviert: Ihr Warenkorb wartet']) {
      expect(checkLanguage(text, 'en'), text).toEqual([{ check: 'language', found: 'German', reason: m.wrongLanguage('German', 'English') }]);
    }
  });

  it('fails subject lines of three or four words in another language, by their words, letters or script', () => {
    const cases: Array<[text: string, expected: string, found: string]> = [
      ['Nur heute gültig', 'en', 'German'],
      ['Votre panier vous attend', 'en', 'French'],
      ['Gracias por tu visita', 'de', 'Spanish'],
      ['Your cart is waiting', 'fr', 'English'],
      ['Je bestelling is onderweg', 'en', 'Dutch'],
      ['Tack för din beställning', 'pl', 'Swedish'],
      ['Ostatnia szansa dziś', 'en', 'Polish'],
      ['Вы уже видели это?', 'uk', 'Russian'],
      ['Ви вже бачили це?', 'ru', 'Ukrainian'],
      ['期間限定セール開催中', 'en', 'Japanese'],
      ['Thank you for your order', 'ja', 'English'],
    ];
    for (const [text, expected, found] of cases) expect(foundIn(text, expected), `${text} (${expected})`).toEqual([found]);
  });

  it('passes English texts that name foreign products, places and people', () => {
    const texts = [
      'Your Chamonix Merino Pullover is waiting',
      'Back in stock: the Bella Napoli espresso set',
      "Don't miss Fjällräven week",
      'Hasta La Vista Sale',
      'Tutti Frutti Ice Pops',
      'El Niño Rain Gear',
      'Crème Brûlée Candle',
      'Jalapeño Poppers Party Pack',
      'Dinner is served with the Paella Valenciana pan',
    ];
    for (const text of texts) expect(foundIn(text, 'en'), text).toEqual([]);
  });

  it('passes loanwords and brands in a text of the expected language, and texts mixing in a little of another script', () => {
    const texts: Array<[expected: string, text: string]> = [
      ['de', 'Black Friday Sale'],
      ['de', 'Shop the Look'],
      ['de', 'Last Call: Summer Sale'],
      ['es', 'Fiesta de rebajas: Café y Crème'],
      ['fr', 'Le Black Friday, c’est maintenant'],
      ['ja', 'BLACK FRIDAY SALE 開催中'],
      ['ja', 'The North Face 新作入荷'],
      ['ru', 'Black Friday: скидки до 70%'],
      ['en', 'Your sushi kit: 寿司 set'],
    ];
    for (const [expected, text] of texts) expect(foundIn(text, expected), `${text} (${expected})`).toEqual([]);
  });

  it('holds its targets on the labelled corpus of short marketing texts', () => {
    const corpus = loadLanguageCorpus();
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    expect(new Set(corpus.map((item) => item.language)).size).toBeGreaterThanOrEqual(8);
    expect(corpus.filter((item) => item.category === 'foreign-names').length).toBeGreaterThanOrEqual(60);
    const figures = measureLanguageCheck(corpus, (text, expected) => (checkLanguage(text, expected).length > 0 ? 'refused' : null));
    for (const target of languageCheckTargets) expect(targetMet(target, figures), `${target.name}: ${target.figure(figures).toFixed(1)} %`).toBe(true);
    expect(percent(figures.foreignNamesRefused), figures.refusals.map((refusal) => refusal.text).join('; ')).toBeLessThanOrEqual(1);
  });
});
