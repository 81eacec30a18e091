import type { EventRecord } from '../../events/event-queries.ts';
import type { FlowRecord } from '../../flows/flow-queries.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import type { Assistant } from '../../../shared/flows/flow-schemas.ts';
import { MAX_TEXT_LENGTH } from '../../../shared/flows/text-rules.ts';
import { textCheckMessages, textCheckNames, type TextCheckName } from '../../../shared/text-checks/text-check-messages.ts';
import type { TextChecksRecord, TextCheckVerdict } from '../../../shared/text-checks/text-check-schemas.ts';
import type { TextRules } from '../../../shared/flows/text-rules-schemas.ts';
import { decideCheckedText } from '../spine/pipeline-core.ts';
import { fillFallbackText, type EventToWrite } from '../writing/prompt-rendering.ts';
import { checkText, type TextCheckFailure } from '../../text-checks/text-checks.ts';
import { checkLanguage, expectedLanguage } from '../../text-checks/text-language.ts';
import { checkProductNames, productNameCandidates } from '../../text-checks/product-names.ts';
import type { ModerationVerdict } from '../../integrations/openai/openai-moderations.ts';
import { ModerationBatcher } from './moderation-batcher.ts';
import { phrasesNotInCatalogue, productDetailsDeps, shopOf, SHOP_NOT_CONNECTED, type ProductDetailsDeps } from '../shop-facts/shop-product-details.ts';
import type { EngineCredentials } from '../spine/engine-credentials.ts';
import type { PipelineContext } from '../spine/pipeline-context.ts';

/**
 * Every check on written texts before delivery (docs/decisions/0040-texts-checked-before-delivery.md):
 * the pure ones of text-checks/ on the event's facts and the flow's rules, then the two
 * that ask a service, the shop's catalogue for products the event does not name and
 * OpenAI's moderation for every text (batched across the process's events). A service
 * that cannot be asked throws, and the event waits and tries again: no text goes out
 * with a check not run that should have run.
 */
export interface TextToCheck {
  assistant: Assistant;
  text: string;
  /** OpenAI stopped at the output limit; known only in the job that wrote the text. */
  endedAtOutputLimit: boolean;
}

export interface TextJudgement {
  failures: TextCheckFailure[];
  verdicts: Partial<Record<TextCheckName, TextCheckVerdict>>;
}

/** One per process: its batches gather the texts of every worker's events. */
const moderation = new ModerationBatcher();

/**
 * The shop's domain by owner, kept a few minutes: it is read from the owner's saved
 * credentials (never by asking Shopify), a round trip every text of a backlog would pay.
 */
const shopDomains = new Map<string, { domain: string | null; until: number }>();
const SHOP_DOMAIN_KEPT_MS = 5 * 60_000;
const MAX_SHOP_DOMAINS_KEPT = 10_000;

async function shopDomainOf(deps: ProductDetailsDeps, userId: string): Promise<string | null> {
  const now = deps.clock.now().getTime();
  const kept = shopDomains.get(userId);
  if (kept && kept.until > now) return kept.domain;
  const domain = await deps.tokens.domainFor(userId);
  if (shopDomains.size >= MAX_SHOP_DOMAINS_KEPT) shopDomains.delete(shopDomains.keys().next().value!);
  shopDomains.set(userId, { domain, until: now + SHOP_DOMAIN_KEPT_MS });
  return domain;
}

/** What the texts are judged against: the owner's shop and rules, the event as the prompts read it, and the credentials and signal of the calls. */
export interface JudgedFor {
  event: Pick<EventRecord, 'userId'>;
  flow: Pick<FlowRecord, 'textRules'>;
  toWrite: EventToWrite;
  credentials: EngineCredentials;
  signal: AbortSignal;
}

export async function judgeTexts(context: PipelineContext, judgedFor: JudgedFor, texts: readonly TextToCheck[]): Promise<TextJudgement[]> {
  const { event, flow, toWrite, credentials, signal } = judgedFor;
  if (texts.length === 0) return [];
  // A recommended product is as much the event's as its own: the text may name it and its price.
  const described = withRecommendedProducts(toWrite);
  const rules = flow.textRules;
  const language = expectedLanguage(rules, described);
  const shop = shopOf(context, credentials);
  const shopDeps = shop ? productDetailsDeps(context, shop, credentials) : null;
  const shopDomain = shopDeps ? await shopDomainOf(shopDeps, event.userId) : null;
  const shopDomains = [shopDomain, ...eventHosts(described)].filter((domain): domain is string => Boolean(domain));
  const knownNames = {
    productNames: described.products.flatMap((product) => (product.name ? [product.name] : [])),
    otherNames: [described.shopper.firstName, described.shopper.lastName, [described.shopper.firstName, described.shopper.lastName].filter(Boolean).join(' ')].filter(
      (name): name is string => Boolean(name),
    ),
  };
  const openai = { baseUrl: credentials.sandbox?.openaiBaseUrl ?? context.openaiBaseUrl, apiKey: credentials.openaiApiKey, timeoutMs: context.options.openaiTimeoutMs, now: () => context.clock.now() };
  const verdictsOfModeration = Promise.all(texts.map((item) => moderation.moderate(openai, item.text)));
  // Keeps an unhandled rejection away while the catalogue is asked; awaited below.
  verdictsOfModeration.catch(() => undefined);

  const judged: TextJudgement[] = [];
  for (const item of texts) {
    const failures = checkText(
      item.text,
      { event: described, shopDomains },
      {
        maxLength: item.assistant.max_length ?? MAX_TEXT_LENGTH,
        allowedCodes: rules.discountCodes,
        couponPlaceholderAllowed: rules.offersCoupon,
        bannedPhrases: rules.bannedPhrases,
        endedAtOutputLimit: item.endedAtOutputLimit,
      },
    );
    if (language) failures.push(...checkLanguage(item.text, language, { names: [...knownNames.productNames, ...knownNames.otherNames] }));
    const candidates = productNameCandidates(item.text, knownNames);
    if (candidates.length > 0) {
      // Without a shop to ask, a product the event does not name cannot be shown to exist.
      const unknown = shopDeps ? await phrasesNotInCatalogue(shopDeps, event.userId, candidates, signal) : SHOP_NOT_CONNECTED;
      failures.push(...checkProductNames(unknown === SHOP_NOT_CONNECTED ? candidates : unknown));
    }
    judged.push({ failures, verdicts: {} });
  }
  const flagged = await verdictsOfModeration;
  return judged.map((judgement, index) => {
    const failures = [...judgement.failures, ...moderationFailures(flagged[index]!)];
    const verdicts = Object.fromEntries(
      (Object.keys(textCheckNames) as TextCheckName[]).map((check): [TextCheckName, TextCheckVerdict] => [
        check,
        check === 'language' && !language ? 'not_run' : failures.some((failure) => failure.check === check) ? 'failed' : 'passed',
      ]),
    );
    return { failures, verdicts };
  });
}

/**
 * One text's judgement carried out, for a stored text and a preview alike: what its checks
 * say, and what it holds, from here on (pipeline-core's decideCheckedText decides). A text
 * in stage `recheck` is the second one written. `writer` is the flow's rules, the assistant
 * that wrote the text, and the event its fallback text is filled in from.
 */
export function settleJudgement<T extends { text: string | null; checks: TextChecksRecord | null }>(
  written: T,
  judgement: TextJudgement,
  writer: { rules: Pick<TextRules, 'onFailedChecks'>; assistant: Assistant; described: NormalizedEvent },
): T {
  const { rules, assistant, described } = writer;
  const before = written.checks?.rejected ?? [];
  const fallback = assistant.fallback_text ? fillFallbackText(assistant.fallback_text, described) : null;
  const decision = decideCheckedText({
    rewritten: written.checks?.stage === 'recheck',
    failures: judgement.failures.length,
    onFailedChecks: rules.onFailedChecks,
    fallbackAvailable: fallback !== null,
  });
  const refused = [...before, { text: written.text!, failures: judgement.failures }];
  const verdicts = judgement.verdicts;
  switch (decision.kind) {
    case 'deliver':
      return { ...written, checks: { stage: 'done', rejected: before, delivered: decision.delivered, verdicts } };
    case 'rewrite':
      return { ...written, checks: { stage: 'rewrite', rejected: refused, delivered: null, verdicts } };
    case 'fallback':
      return { ...written, text: fallback, checks: { stage: 'done', rejected: refused, delivered: 'fallback', verdicts } };
    case 'nothing':
      return { ...written, checks: { stage: 'done', rejected: refused, delivered: 'nothing', verdicts } };
  }
}

function moderationFailures(verdict: ModerationVerdict): TextCheckFailure[] {
  if (!verdict.flagged) return [];
  return [{ check: 'moderation', found: verdict.categories.join(', '), reason: textCheckMessages.flagged(verdict.categories) }];
}

/**
 * The event with the recommendations offered to its prompts among its products, so the
 * checks accept their names, prices and links and still refuse any other product. A price
 * in another currency than the event's is left out: the amounts check reads the event's.
 */
export function withRecommendedProducts(toWrite: EventToWrite): NormalizedEvent {
  const recommended = toWrite.recommendations ?? [];
  if (recommended.length === 0) return toWrite;
  const currency = toWrite.currency?.toUpperCase() ?? null;
  return {
    ...toWrite,
    products: [
      ...toWrite.products,
      ...recommended.map((product) => ({
        id: null,
        name: product.title,
        description: null,
        price: currency === null || product.currency === null || product.currency.toUpperCase() === currency ? product.price : null,
        quantity: 1,
        url: product.url,
      })),
    ],
  };
}

/** The hosts of the event's own addresses: a shop that is not on Shopify is known by them. */
function eventHosts(event: NormalizedEvent): string[] {
  return [event.checkoutUrl, ...event.products.map((product) => product.url)].flatMap((url) => {
    if (!url) return [];
    try {
      return [new URL(url).hostname];
    } catch {
      return [];
    }
  });
}
