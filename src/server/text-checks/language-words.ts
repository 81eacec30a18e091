/**
 * What short texts carry of their language: the words every sentence needs (articles,
 * pronouns, prepositions, conjunctions, the commonest verbs and adverbs) and the letters
 * a language writes and others do not. Read by `language-evidence.ts`.
 *
 * The lists are general, not drawn from any set of test sentences: a list holds the
 * frequent short words of its language, including those it shares with others ("in" is
 * English, German, Dutch, Italian and Swedish), because a word counts for a language
 * against the expected one only when the expected one lacks it. A word missing from the
 * expected language's list could make a right text look foreign, so each list is kept
 * broad; a word missing elsewhere only weakens the evidence.
 *
 * Elided forms end in an apostrophe (l', dell', qu') and match the start of a word.
 */
export const functionWords: Readonly<Record<string, string>> = {
  en: `a an the and or but nor of to in on at for with from by about into onto over under up down out off than then so as if
    too very just only also even still again back away here there now today tonight tomorrow soon ever never always yet
    not no yes all any some every each more most less much many few other another such own same new last next first
    this that these those what what's which who who's whose when where why how i i'm i've i'll i'd me my mine we we're
    we've we'll us our ours you you're you've you'll you'd your yours yourself he she him her his hers it it's its
    they they're them their theirs there's here's that's is are was were be been being am isn't aren't wasn't weren't
    has have had hasn't haven't do does did don't doesn't didn't will would shall should can could may might must
    won't wouldn't can't couldn't shouldn't let let's get gets got make makes made go goes going see take takes give
    keep need want know like love before after while until because since through during without within inside
    around thanks thank please several both either neither enough`,
  de: `der die das den dem des ein eine einen einem einer eines und oder aber denn doch sondern mit ohne für gegen auf an
    am im in ins zu zum zur von vom bei beim aus nach über unter vor bis durch um ab seit ist sind war waren wird
    werden wurde hat haben hast habt kann können kannst muss müssen darf soll sollte will wollen möchte möchtest gibt
    gib du dich dir dein deine deinen deinem deiner deines ihr ihre ihren ihrem ihrer ihres sie ihnen euch euer eure
    er es wir uns unser unsere unseren unserem unserer ich mich mir mein meine meinen meinem nicht kein keine keinen
    nichts nur noch schon jetzt heute morgen bald hier da dort so auch sehr wie was wer wo wann warum wenn dass ob als
    alle alles allen neu neue neuen neues neuer mehr viel viele jeder jede jedes jeden jedem diese dieser dieses
    diesen diesem gleich wieder zurück immer gratis kostenlos endlich einfach sofort etwas man sich einige wenige manche beide genug paar`,
  fr: `le la les l' un une des du de d' au aux et ou mais donc car ni pour par avec sans sur sous dans en à chez vers
    entre contre depuis pendant avant après jusqu'à jusqu' est sont c'est c' ce cet cette ces ceci cela ça votre vos
    ton ta tes notre nos mon ma mes son sa ses leur leurs vous tu toi te t' nous on il elle ils elles lui eux je j'
    me m' se s' qui que qu' quoi dont où ne n' pas plus moins encore déjà maintenant aujourd'hui demain bientôt ici
    là tout tous toute toutes très bien trop aussi peu nouveau nouvel nouvelle nouveaux nouvelles gratuit gratuite
    gratuits gratuites offert offerte dernier dernière derniers dernières seulement avez avons ont a as ai êtes
    sommes suis été être avoir fait peut pouvez voici voilà y quand comme si non oui enfin vite quelque quelques beaucoup plusieurs assez certains certaines chaque aucun aucune`,
  es: `el la los las lo un una unos unas de del al a en con por para sin sobre entre hasta desde hacia y e o u ni pero
    que qué quien quién es son está están estás estamos ser fue hay ha han has he tu tus tú te ti tuyo tuya tuyos su
    sus usted ustedes nuestro nuestra nuestros nuestras mi mis yo me nos se le les no sí ya más menos muy hoy ahora
    mañana aquí allí todo toda todos todas nuevo nueva nuevos nuevas gratis solo sólo este esta estos estas ese esa
    esos esas eso esto también cuando como cómo donde dónde porque tienes tiene tenemos puedes puede otro otra otros
    cada siempre nunca aún todavía pronto último última casi tan algún alguna algunos algunas poco poca pocos pocas mucho mucha muchos muchas varios varias bastante ningún ninguna`,
  it: `il lo la i gli le l' un uno una un' di del dello della dei degli delle dell' a al allo alla ai agli alle all' da
    dal dallo dalla dai dagli dalle dall' in nel nello nella nei negli nelle nell' su sul sullo sulla sui sugli sulle
    sull' con per tra fra e ed o ma che chi è sono sei siamo siete ha hai hanno abbiamo essere avere c'è c' tuo tua
    tuoi tue suo sua suoi sue nostro nostra nostri nostre vostro vostra mio mia miei ti te tu ci vi si ne non più già
    ora adesso oggi domani qui qua tutto tutti tutta tutte nuovo nuova nuovi nuove gratis solo ancora anche molto poco
    questo questa questi queste quello quella come com' quando dove perché subito sempre mai ogni altro altra ultimo
    ultima ultimi ultime noi voi lui lei io mi qualche alcuni alcune pochi poche molti molte molta parecchi nessun nessuno nessuna senza`,
  pt: `o a os as um uma uns umas de do da dos das em no na nos nas num numa ao à aos às com por pelo pela pelos pelas
    para pra sem sobre entre até desde e ou mas nem que é são está estão estás era foi ser ter tem têm há seu sua seus
    suas você vocês te tu teu tua teus tuas nosso nossa nossos nossas meu minha meus minhas se lhe lhes me não sim já
    mais menos muito muita muitos hoje agora amanhã aqui ali aí tudo todo toda todos todas novo nova novos novas grátis
    gratis só apenas este esta estes estas esse essa isso isto aquele também quando como onde porque ainda sempre
    nunca cada outro outra último última pode podem vai vem estamos temos algum alguma alguns algumas pouco pouca poucos poucas muitas vários várias nenhum nenhuma`,
  nl: `de het een en of maar want dus van in op met voor aan bij uit naar over om tot door te is zijn was waren wordt
    worden heeft hebben heb hebt kan kunnen kun wil wilt moet mag zal zult je jij jou jouw jullie u uw we wij ons onze
    ik me mij mijn hij zij ze haar hem hun dit dat deze die niet geen nog al nu vandaag morgen straks hier daar er
    alles alle iets niets nieuw nieuwe gratis alleen ook zo heel erg meer minder weer terug even snel wat wie waar
    wanneer hoe als dan zonder tegen sinds ben bent maar sommige enkele weinig veel paar beide genoeg elk elke ieder iedere`,
  sv: `och i på för med av till från att är var blir har hade kan ska skall vill måste får det den de dem en ett din
    ditt dina du dig er ert era ni vi oss vår vårt våra jag mig min mitt mina han hon hans hennes sin sitt sina som om
    nu idag imorgon snart här där inte ingen inget inga bara också så mycket mer mest än alla allt nya ny nytt gratis
    redan igen tillbaka just när hur vad vem utan mot sedan efter före innan under över ut upp hos eller men dessa
    denna detta några någon något få många lite båda varje`,
  da: `og i på for med af til fra at er var bliver blev har havde kan skal vil må får det den de dem en et din dit dine
    du dig jer os vores vi jeg mig min mit mine han hun hans hendes sin sit sine som om nu idag snart her der ikke
    ingen intet kun også så meget mere mest end alle alt nye ny nyt gratis allerede igen tilbage lige når hvor
    hvordan hvad hvem uden mod siden efter før inden under over ud op hos eller men disse denne dette nogle nogen noget få mange lidt begge hver hvert`,
  no: `og i på for med av til fra å er var blir ble har hadde kan skal vil må får det den de dem en et ei din ditt dine
    du deg dere oss vår vårt våre vi jeg meg min mitt mine han hun hans hennes sin sitt sine som om nå idag snart her
    der ikke ingen intet bare også så mye mer mest enn alle alt nye ny nytt gratis allerede igjen tilbake når hvor
    hvordan hva hvem uten mot siden etter før under over ut opp hos eller men disse denne dette noen noe få mange litt begge hver hvert`,
  fi: `ja on ei se ne ovat oli olla olet olemme sinun sinulle sinua sinulta teidän teille meidän meille meiltä me te minä
    minun hän he tai kun että jos mutta nyt vain jo myös kanssa ilman uusi uudet uutta uusia tänään huomenna pian
    täällä kaikki kaikille kaiken kaikesta vielä heti enää tämä nämä tässä siellä joka jotka kuin mitä miten missä
    älä saat voit koko yli alle jopa jotkut muutama monta paljon vähän molemmat jokainen`,
  pl: `i w we z ze na do od po o u za przez dla przy bez nad pod przed między a ale lub albo czy że to ten ta te tego
    tej tym jest są był była było być ma mają masz możesz może twój twoja twoje twoim twoich twojego twojej wasz
    wasza wasze nasz nasza nasze nasi mój moja moje ty ci cię ciebie tobie tobą wy was wam my nas nam się nie tak już
    tylko teraz dziś dzisiaj jutro tutaj tu wszystko wszystkie wszystkich nowy nowa nowe jeszcze bardzo więcej jak
    kiedy gdzie co kto który która które sobie swoje swój kilka kilku wiele mało trochę oba każdy każda każde żaden`,
  cs: `a i v ve na do z ze s se od po o u k ke za pro při bez nad pod před mezi ale nebo či že to ten ta ty je jsou
    byl byla bylo být má mají máte můžete může váš vaše vás vám vaši tvůj tvoje tě ti tebe vy my nás nám náš naše
    ne není tak už jen jenom teď nyní dnes zítra tady zde vše všechno všechny nový nová nové zdarma ještě velmi více
    jak kdy kde co kdo který která které jako také jste jsme několik málo mnoho trochu oba každý každá každé žádný`,
  sk: `a i v vo na do z zo s so sa od po o u k ku za pre pri bez nad pod pred medzi ale alebo či že to ten ta tie je
    sú bol bola bolo byť má majú máte môžete môže váš vaša vaše vás vám tvoj tvoja teba vy my nás nám náš naša nie
    tak už len teraz dnes zajtra tu tam všetko všetky nový nová nové zadarmo ešte veľmi viac ako kedy kde čo kto
    ktorý ktorá ktoré aj tiež ste sme niekoľko málo veľa trochu oba každý každá každé žiadny`,
  hu: `a az és egy hogy nem van vannak volt is meg már még most csak ma holnap itt ott minden mindent új ingyenes ingyen
    vagy de ha mint mert amikor ez ezt ezek azt te ti ön önnek önt neked nektek mi nekünk veled el fel ki be le néhány kevés sok mindkét`,
  ro: `și şi în la de cu pe pentru din prin fără despre până spre un o unei unui niște a al ai ale cel cea cei cele
    este e sunt era fi are au avem aveți poți poate tău ta tale tăi tu te ți îți vă voi noi nostru noastră noștri
    său sa lui ei nu da mai acum azi astăzi mâine aici tot toate toți totul nou nouă gratuit gratis doar încă foarte
    mult ca când unde cum ce care acest această aceste se câteva câțiva puțin puțini mulți multe ambele fiecare niciun`,
  hr: `i u na je se s sa za od do iz po o k ka pri bez nad pod pred između a ali ili da ne su bio bila bilo biti ima
    imaju imate možete može vaš vaša vaše vas vam tvoj tvoja tvoje te ti tebe vi mi nas nam ovo ovaj ova ove to taj
    ta sad sada danas sutra ovdje tu sve svi nova novo novi besplatna besplatno besplatan samo još jako više kao kad
    kada gdje što tko koji koja koje nekoliko malo mnogo puno oba svaki svaka svako nijedan`,
  tr: `ve bir bu şu o da de ile için gibi kadar daha en çok az her tüm hepsi sen seni sana siz sizi size senin sizin
    bizim biz ben benim onun yeni ücretsiz bedava şimdi bugün yarın burada hemen sadece yalnızca hâlâ değil var yok
    mi mı mu mü ne ki ama veya ya birkaç biraz birçok bazı hiç`,
  vi: `và của cho với các những là có được này không một đã sẽ đang bạn chúng tôi ta mình ngay hôm nay mới miễn phí chỉ
    còn rất nhiều hơn tất cả khi đến từ trong trên tại để nhé nha ơi`,
  ca: `el la els les l' un una uns unes de d' del dels al als a en amb per sense sobre entre fins des i o però que què
    és són està estan ser ha han has teu teva teus teves seu seva seus seves vostre vostra nostre nostra nostres meu
    meva et t' us ens es s' no sí ja més menys molt avui ara demà aquí tot tota tots totes nou nova nous noves gratis
    només aquest aquesta aquests aquestes també quan com on perquè encara sempre algun alguna alguns algunes poc poca pocs poques molts moltes`,
  id: `dan di ke dari yang untuk dengan ini itu anda kamu kami kita sekarang hari baru gratis hanya sudah akan tidak
    bisa jangan semua lebih sangat juga atau tapi karena saat sampai pada dalam oleh bagi`,
  ru: `и в во на с со к ко по за из от до для без о об при у не но а или что как это этот эта эти все всё всех ваш ваша
    ваше ваши вас вам вы ты тебя тебе твой твоя твои мы нас нам наш наша наши он она они его её их уже ещё только
    сейчас сегодня завтра здесь тут новый новая новое новые бесплатно очень больше есть был была будет всего несколько много мало каждый`,
  uk: `і й та в у на з із зі до від для без про при по за не але а або що як це цей ця ці все всі ваш ваша ваше ваші
    вас вам ви ти тебе твій твоя твої ми нас нам наш наша наші він вона вони його її їх вже ще тільки зараз сьогодні
    завтра тут нові новий нова нове безкоштовно дуже більше є був була буде кілька багато мало кожен`,
  bg: `и в във на с със към по за от до без при у не но а или че как това този тази тези всичко всички вашия вашата
    вашите ваш ваша вас ви ти теб твоя твоят твоите ние нас нашия нашата той тя те го ги вече още само сега днес
    утре тук нов нова ново нови безплатна безплатно много повече е са беше ще няколко малко всеки`,
  sr: `и у на са за од до из по о к без над под пред између а али или да не су је се ваш ваша ваше вас вам ти теби
    твој твоја ми нас нам ово овај ова то сада данас сутра овде све сви нова ново нови бесплатно само још више као
    када где што ко који`,
};

/**
 * Letters that only some languages write, with those languages. A word with such a
 * letter is weaker evidence than a function word: loanwords and names carry them into
 * other languages (café, crème, Fjällräven, jalapeño).
 */
export const distinctiveLetters: Readonly<Record<string, string>> = {
  ß: 'de',
  ä: 'de sv fi sk',
  ö: 'de sv fi hu tr',
  ü: 'de hu tr',
  å: 'sv da no',
  æ: 'da no',
  ø: 'da no',
  ñ: 'es',
  ã: 'pt vi',
  õ: 'pt vi',
  ç: 'fr pt ca tr',
  é: 'fr es pt it ca cs sk hu vi',
  è: 'fr it ca vi',
  ê: 'fr pt vi',
  â: 'fr pt ro tr vi',
  î: 'fr ro',
  ô: 'fr pt sk vi',
  û: 'fr',
  ë: 'fr nl',
  ï: 'fr nl ca',
  œ: 'fr',
  à: 'fr it pt ca vi',
  ì: 'it vi',
  ò: 'it ca vi',
  ù: 'it fr vi',
  í: 'es pt it ca cs sk hu vi',
  ó: 'es pt it pl ca cs sk hu vi',
  ú: 'es pt it cs sk hu vi ca',
  á: 'es pt cs sk hu vi',
  ý: 'cs sk vi',
  ł: 'pl',
  ś: 'pl',
  ż: 'pl',
  ź: 'pl',
  ń: 'pl',
  ą: 'pl',
  ę: 'pl',
  ć: 'pl hr',
  č: 'cs sk hr',
  š: 'cs sk hr',
  ž: 'cs sk hr',
  ř: 'cs',
  ů: 'cs',
  ě: 'cs',
  ď: 'cs sk',
  ť: 'cs sk',
  ň: 'cs sk',
  ľ: 'sk',
  ĺ: 'sk',
  ŕ: 'sk',
  ő: 'hu',
  ű: 'hu',
  ă: 'ro vi',
  ș: 'ro',
  ț: 'ro',
  ţ: 'ro',
  ş: 'ro tr',
  ğ: 'tr',
  ı: 'tr',
  đ: 'hr vi',
  ơ: 'vi',
  ư: 'vi',
  і: 'uk',
  ї: 'uk',
  є: 'uk',
  ґ: 'uk',
  ы: 'ru',
  э: 'ru',
  ё: 'ru',
  ъ: 'ru bg',
  ђ: 'sr',
  ћ: 'sr',
  љ: 'sr',
  њ: 'sr',
  џ: 'sr',
  ј: 'sr',
};

/** Vietnamese writes tones over its vowels; no other language here uses these letters. */
export const vietnameseTones = /[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]/u;

/** Lowercase name particles (de, la, van, von, del…) inside a capitalised name belong to the name. */
export const nameParticles = new Set(
  'de la le les el los las del della delle di da das dos do du des van von der den dem il lo y e et und af av san santa st di'.split(' '),
);

/**
 * Phrases one language borrows whole from another, which prove nothing about the language
 * of the text around them: English marketing phrases written as they are in other
 * languages ("Black Friday", "Shop the Look") and phrases of other languages at home in
 * English ("à la carte", "bon appétit"). Taken out before the words are read.
 */
export const loanPhrases: readonly string[] = [
  // English in other languages' shops
  'black friday', 'black week', 'cyber monday', 'cyber week', 'singles day', 'summer sale', 'winter sale', 'mid season sale',
  'end of season', 'final sale', 'flash sale', 'last call', 'last minute', 'new in', 'new arrivals', 'best of', 'back in stock',
  'back to school', 'shop the look', 'get the look', 'must have', 'must haves', 'happy hour', 'happy birthday', 'happy new year',
  'merry christmas', 'coming soon', 'sold out', 'limited edition', 'save the date', 'sneak peek', 'self care', 'home office',
  'click and collect', 'click & collect', 'early bird', 'early access', 'pre order', 'deal of the day', 'out of office', 'see now buy now',
  // Other languages in English
  'à la carte', 'a la carte', 'à la mode', 'a la mode', 'al fresco', 'al dente', 'bon appétit', 'bon voyage', "c'est la vie",
  'crème de la crème', 'de luxe', 'déjà vu', 'en route', 'en vogue', 'joie de vivre', 'je ne sais quoi', 'la dolce vita',
  'dolce vita', 'dolce far niente', 'la vie en rose', 'hasta la vista', 'mi casa es su casa', 'feliz navidad', 'día de los muertos',
  'dia de los muertos', 'cinco de mayo', 'buon appetito', 'prêt-à-porter', 'savoir faire', "raison d'être", 'carte blanche',
  'vis-à-vis', 'per se', 'et cetera', 'ad hoc', 'status quo', 'bona fide', 'pro bono', 'vive la france', 'coq au vin',
  'pain au chocolat', 'café au lait', 'crème brûlée', "objet d'art", 'tête-à-tête', 'tour de force', 'pièce de résistance',
  'eau de parfum', 'eau de toilette', 'eau de cologne', 'mise en place', 'que sera sera', 'ciao bella', 'grazie mille',
  'danke schön', 'haute couture', 'art déco', 'belle époque', "hors d'oeuvre", "hors d'œuvre", 'sous vide', 'fleur de lis',
];
