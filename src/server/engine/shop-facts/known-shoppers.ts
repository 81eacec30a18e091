import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { EventRecord } from '../../events/event-queries.ts';
import { findProfilesByEmails, MAX_EMAILS_PER_LOOKUP, type KnownProfile } from '../../integrations/klaviyo/klaviyo-profiles.ts';
import { withQuickRetry } from '../spine/quick-retry.ts';
import { klaviyoLimitKey, type EngineCredentials } from '../spine/engine-credentials.ts';
import { quickRetries, type PipelineContext } from '../spine/pipeline-context.ts';
import { endedBy, goOn, type StepResult } from '../spine/step-result.ts';
import { klaviyoConnection, takeSlot } from '../delivery/klaviyo-delivery.ts';
import { decideKnownShopper } from '../spine/pipeline-core.ts';
import { cacheLifetime } from '../../platform/clock.ts';

/**
 * The browsing pixel's endpoint is public and its address sits in the storefront's code,
 * so anyone could post views under any email. Its events therefore only update shoppers
 * the owner's Klaviyo account already has, never create a profile, and are checked
 * before any AI runs (docs/decisions/0011-shopper-timers.md).
 *
 * The answers are kept (a known shopper for an hour, an unknown one for 5 minutes, so a
 * shopper who signs up is soon seen), and look-ups asked at about the same time for one
 * account go to Klaviyo as one `any(email,[…])` request of up to 100: on a sale day the
 * pixel's checks would otherwise spend the account's profile budget one email at a time.
 * An unknown shopper ends the event (skipped).
 */
export async function requireKnownShopper(
  context: PipelineContext,
  shopper: { event: EventRecord; email: string; credentials: EngineCredentials; signal: AbortSignal },
): Promise<StepResult<KnownProfile>> {
  const { event, email, credentials, signal } = shopper;
  const lookups = lookupsOf(context);
  const account = accountKey(klaviyoLimitKey(credentials));
  const cacheKey = `${account}:${email.toLowerCase()}`;
  let profile = lookups.cache.get(cacheKey)?.profile;
  if (profile === undefined) {
    profile = await withQuickRetry(() => lookUp(context, lookups, { account, email, credentials, signal }), context.options.retry, quickRetries(context, event, 'Klaviyo', signal));
    lookups.cache.set(cacheKey, { profile }, { ttl: profile ? KNOWN_FOR_MS : UNKNOWN_FOR_MS });
  }
  return endedBy(decideKnownShopper(profile !== null)) ?? goOn(profile!);
}

export const KNOWN_FOR_MS = 60 * 60_000;
export const UNKNOWN_FOR_MS = 5 * 60_000;
/** How long a look-up waits for others to share its request. */
const GATHER_MS = 20;

interface Gathering {
  emails: Map<string, Array<{ resolve: (profile: KnownProfile | null) => void; reject: (error: unknown) => void }>>;
  timer: NodeJS.Timeout | null;
}

interface Lookups {
  /** An unknown shopper (no profile) is an answer worth keeping too: `{ profile: null }`. */
  cache: LRUCache<string, { profile: KnownProfile | null }>;
  /** Look-ups gathering for one request, per account. */
  gathering: Map<string, Gathering>;
}

const lookupsByContext = new WeakMap<PipelineContext, Lookups>();

function lookupsOf(context: PipelineContext): Lookups {
  let lookups = lookupsByContext.get(context);
  if (!lookups) {
    lookups = { cache: new LRUCache<string, { profile: KnownProfile | null }>({ max: 100_000, ...cacheLifetime(context.clock, KNOWN_FOR_MS) }), gathering: new Map() };
    lookupsByContext.set(context, lookups);
  }
  return lookups;
}

function accountKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
}

/** The account asked about, and the credentials and signal a request goes with (those of the look-up that starts or fills it). */
interface Asking {
  account: string;
  credentials: EngineCredentials;
  signal: AbortSignal;
}

/** Joins (or starts) the account's gathering request for `email`. */
function lookUp(context: PipelineContext, lookups: Lookups, asking: Asking & { email: string }): Promise<KnownProfile | null> {
  const { account, email } = asking;
  return new Promise((resolve, reject) => {
    let gathering = lookups.gathering.get(account);
    if (!gathering) {
      gathering = { emails: new Map(), timer: null };
      lookups.gathering.set(account, gathering);
      const started = gathering;
      started.timer = setTimeout(() => void send(context, lookups, started, asking), GATHER_MS);
    }
    const key = email.toLowerCase();
    gathering.emails.set(key, [...(gathering.emails.get(key) ?? []), { resolve, reject }]);
    if (gathering.emails.size >= MAX_EMAILS_PER_LOOKUP) {
      clearTimeout(gathering.timer!);
      void send(context, lookups, gathering, asking);
    }
  });
}

async function send(context: PipelineContext, lookups: Lookups, gathering: Gathering, asking: Asking): Promise<void> {
  const { account, credentials, signal } = asking;
  if (lookups.gathering.get(account) === gathering) lookups.gathering.delete(account);
  const emails = [...gathering.emails.keys()];
  try {
    await takeSlot(context, credentials, 'profiles', signal);
    const found = await findProfilesByEmails(await klaviyoConnection(context, credentials, signal), emails, signal);
    for (const [email, waiters] of gathering.emails) for (const waiter of waiters) waiter.resolve(found.get(email) ?? null);
  } catch (error) {
    for (const waiters of gathering.emails.values()) for (const waiter of waiters) waiter.reject(error);
  }
}
