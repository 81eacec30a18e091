import { randomUUID } from 'node:crypto';
import { delay, hang, SlidingWindow, startFakeServer, type FakeReply, type RecordedRequest } from './fake-server.ts';

export type KlaviyoEndpoint =
  | 'accounts'
  | 'profiles'
  | 'profile-import'
  | 'events'
  | 'profile-bulk-import-jobs'
  | 'profile-bulk-import-job'
  | 'profile-bulk-import-errors'
  | 'event-bulk-create-jobs';

/**
 * A forced failure, used once from the queue (`failNext`) or every time a `failWhen`
 * rule returns it. `on` limits it to one endpoint; without it, any request takes it.
 * - `status`: 500, 503, or 429 (with `Retry-After` seconds) as a JSON:API error.
 * - `bad-property`: 400 with a JSON:API error pointing at a property.
 * - `hang`: no answer at all, until the fake is closed.
 */
export type KlaviyoFailure = { on?: KlaviyoEndpoint } & (
  | { kind: 'status'; status: number; retryAfterSeconds?: number; detail?: string }
  | { kind: 'bad-property'; property?: string; detail?: string }
  | { kind: 'hang' }
);

export interface FakeKlaviyoProfile {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  properties: Record<string, unknown>;
  created: string;
  updated: string;
}

export interface FakeKlaviyoEvent {
  metric: string;
  email: string | undefined;
  properties: Record<string, unknown>;
  profileProperties: Record<string, unknown>;
  uniqueId: string | undefined;
  time: string | undefined;
  apiKey: string;
}

export interface RateLimit {
  burstPerSecond: number;
  steadyPerMinute: number;
}

export interface FakeKlaviyoOptions {
  /** Private keys the fake accepts (default: ['pk_test_valid']). */
  validKeys?: string[];
  /** Valid keys that lack the accounts:read scope: GET /api/accounts answers 403. */
  keysWithoutAccountsScope?: string[];
  /** What an unknown key gets: 401 (default) or 400, as INTEGRATIONS.md leaves it open. */
  invalidKeyStatus?: 400 | 401;
  /** Enforce the per-account limits (default off). */
  enforceRateLimits?: boolean;
  /** Override the per-account limits (defaults: INTEGRATIONS.md). */
  limits?: Partial<Record<KlaviyoEndpoint, RateLimit>>;
  latencyMs?: number;
  /** Time in milliseconds used for the rate windows (default Date.now). */
  now?: () => number;
  /** How long a bulk import job takes from queued to complete (default 300 ms). */
  bulkJobMs?: number;
}

const defaultLimits: Record<KlaviyoEndpoint, RateLimit> = {
  accounts: { burstPerSecond: 1, steadyPerMinute: 15 },
  profiles: { burstPerSecond: 75, steadyPerMinute: 700 },
  'profile-import': { burstPerSecond: 75, steadyPerMinute: 700 },
  events: { burstPerSecond: 350, steadyPerMinute: 3500 },
  // The bulk endpoints are Klaviyo's "M" tier (INTEGRATIONS.md).
  'profile-bulk-import-jobs': { burstPerSecond: 10, steadyPerMinute: 150 },
  'profile-bulk-import-job': { burstPerSecond: 10, steadyPerMinute: 150 },
  'profile-bulk-import-errors': { burstPerSecond: 10, steadyPerMinute: 150 },
  'event-bulk-create-jobs': { burstPerSecond: 10, steadyPerMinute: 150 },
};

/** A bulk profile import job as the fake keeps it. */
interface FakeImportJob {
  id: string;
  createdAt: number;
  /** When Klaviyo starts working on it: its creation, or the end of a hold (holdImportJobs). */
  startsAt: number;
  total: number;
  errors: Array<{ email: string; detail: string; original: Record<string, unknown> }>;
  /** Applied when the job completes. */
  apply: () => void;
  applied: boolean;
}

const maxBodyBytes = 100 * 1024;

function apiError(status: number, code: string, title: string, detail: string, pointer = '/data/', headers?: Record<string, string>): FakeReply {
  return {
    status,
    headers,
    contentType: 'application/vnd.api+json',
    body: { errors: [{ id: randomUUID(), status, code, title, detail, source: { pointer } }] },
  };
}

function mergeProperties(target: Record<string, unknown>, changes: Record<string, unknown> | undefined): void {
  for (const [key, value] of Object.entries(changes ?? {})) {
    if (value === null) delete target[key];
    else target[key] = value;
  }
}

/** A local Klaviyo: accounts check, profile import and events per INTEGRATIONS.md. */
export async function startFakeKlaviyo(options: FakeKlaviyoOptions = {}) {
  const validKeys = new Set(options.validKeys ?? ['pk_test_valid']);
  const keysWithoutAccountsScope = new Set(options.keysWithoutAccountsScope ?? []);
  const limits = { ...defaultLimits, ...options.limits };
  const now = options.now ?? Date.now;
  const profiles = new Map<string, FakeKlaviyoProfile>();
  const events: FakeKlaviyoEvent[] = [];
  const seenUniqueIds = new Set<string>();
  const queue: KlaviyoFailure[] = [];
  const rules: Array<(request: RecordedRequest) => KlaviyoFailure | undefined> = [];
  const burst = new SlidingWindow(1000);
  const steady = new SlidingWindow(60_000);
  const writes = new SlidingWindow(60_000);
  const state = {
    enforceRateLimits: options.enforceRateLimits ?? false,
    latencyMs: options.latencyMs ?? 0,
    throttled: 0,
    counts: Object.fromEntries(Object.keys(defaultLimits).map((endpoint) => [endpoint, 0])) as Record<KlaviyoEndpoint, number>,
    bulkJobMs: options.bulkJobMs ?? 300,
    /** Import jobs are accepted but not started while this is true (holdImportJobs). */
    holdingImportJobs: false,
  };
  const importJobs = new Map<string, FakeImportJob>();
  /** Emails a bulk import refuses (listed in the job's import errors), with Klaviyo's detail. */
  const refusedInBulk = new Map<string, string>();

  const appliesTo = (failure: KlaviyoFailure, endpoint: KlaviyoEndpoint) => failure.on === undefined || failure.on === endpoint;

  function failureFor(request: RecordedRequest, endpoint: KlaviyoEndpoint): KlaviyoFailure | undefined {
    for (const rule of rules) {
      const failure = rule(request);
      if (failure && appliesTo(failure, endpoint)) return failure;
    }
    const index = queue.findIndex((failure) => appliesTo(failure, endpoint));
    return index === -1 ? undefined : queue.splice(index, 1)[0];
  }

  function throttledReply(retryAfterSeconds: number): FakeReply {
    state.throttled += 1;
    return apiError(
      429,
      'throttled',
      'Request was throttled.',
      `Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
      '/data/',
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }

  function failureReply(failure: KlaviyoFailure): FakeReply | typeof hang {
    switch (failure.kind) {
      case 'hang':
        return hang;
      case 'bad-property': {
        const property = failure.property ?? 'properties';
        return apiError(400, 'invalid', 'Invalid input.', failure.detail ?? `'${property}' is not a valid field for the resource 'profile'.`, `/data/attributes/${property}`);
      }
      case 'status':
        if (failure.status === 429) return throttledReply(failure.retryAfterSeconds ?? 1);
        return apiError(
          failure.status,
          failure.status >= 500 ? 'server_error' : 'error',
          failure.status >= 500 ? 'A server error occurred.' : 'Request failed.',
          failure.detail ?? 'The service answered with an error.',
        );
    }
  }

  /** Applies the per-account burst and steady windows; returns a 429 when over either. */
  function rateLimit(key: string, endpoint: KlaviyoEndpoint): FakeReply | undefined {
    const at = now();
    const windowKey = `${key}|${endpoint}`;
    if (state.enforceRateLimits) {
      const limit = limits[endpoint];
      const overBurst = burst.count(windowKey, at) >= limit.burstPerSecond;
      const overSteady = steady.count(windowKey, at) >= limit.steadyPerMinute;
      if (overBurst || overSteady) {
        const waitMs = Math.max(overBurst ? burst.freeInMs(windowKey, at) : 0, overSteady ? steady.freeInMs(windowKey, at) : 0);
        return throttledReply(Math.max(1, Math.ceil(waitMs / 1000)));
      }
    }
    burst.add(windowKey, at);
    steady.add(windowKey, at);
    return undefined;
  }

  function upsertProfile(email: string, attributes: Record<string, any>): { profile: FakeKlaviyoProfile; created: boolean } {
    const stamp = new Date(now()).toISOString();
    let profile = profiles.get(email);
    const created = !profile;
    if (!profile) {
      profile = { id: randomUUID().replace(/-/g, '').slice(0, 26).toUpperCase(), email, first_name: null, last_name: null, properties: {}, created: stamp, updated: stamp };
      profiles.set(email, profile);
    }
    // An absent field is kept, null clears it.
    if (attributes.first_name !== undefined) profile.first_name = attributes.first_name;
    if (attributes.last_name !== undefined) profile.last_name = attributes.last_name;
    mergeProperties(profile.properties, attributes.properties);
    profile.updated = stamp;
    return { profile, created };
  }

  const profileResource = (profile: FakeKlaviyoProfile) => ({
    type: 'profile',
    id: profile.id,
    attributes: {
      email: profile.email,
      first_name: profile.first_name,
      last_name: profile.last_name,
      properties: profile.properties,
      created: profile.created,
      updated: profile.updated,
    },
    links: { self: `https://a.klaviyo.com/api/profiles/${profile.id}/` },
  });

  function handleProfileImport(request: RecordedRequest): FakeReply {
    if (Buffer.byteLength(request.rawBody) > maxBodyBytes) {
      return apiError(413, 'request_too_large', 'Request too large.', 'The request payload exceeds the 100 KB limit.');
    }
    const data = (request.body as any)?.data;
    if (data?.type !== 'profile') return apiError(400, 'invalid', 'Invalid input.', "'data.type' must be 'profile'.", '/data/type');
    const attributes = data.attributes ?? {};
    if (typeof attributes.email !== 'string' || !attributes.email.includes('@')) {
      return apiError(400, 'invalid', 'Invalid input.', 'One of email, phone_number or external_id is required.', '/data/attributes/email');
    }
    const { profile, created } = upsertProfile(attributes.email, attributes);
    const unset = data.meta?.patch_properties?.unset;
    for (const key of typeof unset === 'string' ? [unset] : Array.isArray(unset) ? unset : []) delete profile.properties[key];
    return { status: created ? 201 : 200, contentType: 'application/vnd.api+json', body: { data: profileResource(profile) } };
  }

  /** GET /api/profiles?filter=equals(email,"…") or any(email,["…","…"]): the filters the app uses. */
  function handleGetProfiles(request: RecordedRequest): FakeReply {
    const filter = request.query.get('filter') ?? '';
    const quoted = /"((?:[^"\\]|\\.)*)"/g;
    const equals = /^equals\(email,"((?:[^"\\]|\\.)*)"\)$/.exec(filter);
    const any = /^any\(email,\[(.*)\]\)$/.exec(filter);
    if (!equals && !any) return apiError(400, 'invalid', 'Invalid input.', `Invalid filter provided: ${filter}`, '/filter');
    const emails = equals ? [equals[1]!] : [...any![1]!.matchAll(quoted)].map((match) => match[1]!);
    if (emails.length > 100) return apiError(400, 'invalid', 'Invalid input.', 'A filter may name at most 100 values.', '/filter');
    const wanted = new Set(emails.map((email) => email.replace(/\\(.)/g, '$1').toLowerCase()));
    const found = [...profiles.values()].filter((profile) => wanted.has(profile.email.toLowerCase()));
    return {
      status: 200,
      contentType: 'application/vnd.api+json',
      body: { data: found.map(profileResource), links: { self: 'https://a.klaviyo.com/api/profiles/', next: null, prev: null } },
    };
  }

  function handleEvents(request: RecordedRequest, key: string): FakeReply {
    const attributes = (request.body as any)?.data?.attributes;
    if ((request.body as any)?.data?.type !== 'event' || !attributes) {
      return apiError(400, 'invalid', 'Invalid input.', "'data.type' must be 'event'.", '/data/type');
    }
    const metric = attributes.metric?.data?.attributes?.name;
    if (typeof metric !== 'string' || metric === '') {
      return apiError(400, 'invalid', 'Invalid input.', 'A metric name is required.', '/data/attributes/metric/data/attributes/name');
    }
    const profileAttributes = attributes.profile?.data?.attributes ?? {};
    if (typeof profileAttributes.email !== 'string') {
      return apiError(400, 'invalid', 'Invalid input.', 'The profile needs an email.', '/data/attributes/profile/data/attributes/email');
    }
    const uniqueId: string | undefined = attributes.unique_id;
    if (uniqueId !== undefined && seenUniqueIds.has(uniqueId)) return { status: 202 };
    if (uniqueId !== undefined) seenUniqueIds.add(uniqueId);
    upsertProfile(profileAttributes.email, profileAttributes);
    events.push({
      metric,
      email: profileAttributes.email,
      properties: attributes.properties ?? {},
      profileProperties: profileAttributes.properties ?? {},
      uniqueId,
      time: attributes.time,
      apiKey: key,
    });
    return { status: 202 };
  }

  /** POST /api/profile-bulk-import-jobs: up to 10,000 profiles and 5 MB; applied when the job completes. */
  function handleBulkImport(request: RecordedRequest): FakeReply {
    if (Buffer.byteLength(request.rawBody) > 5 * 1024 * 1024) return apiError(413, 'request_too_large', 'Request too large.', 'The payload exceeds 5 MB.');
    const data = (request.body as any)?.data;
    const rows = data?.attributes?.profiles?.data;
    if (data?.type !== 'profile-bulk-import-job' || !Array.isArray(rows) || rows.length === 0) {
      return apiError(400, 'invalid', 'Invalid input.', "'data.attributes.profiles.data' must list profiles.", '/data/attributes/profiles');
    }
    if (rows.length > 10_000) return apiError(400, 'invalid', 'Invalid input.', 'A job may import at most 10,000 profiles.', '/data/attributes/profiles/data');
    const createdAt = now();
    const startsAt = state.holdingImportJobs ? Number.POSITIVE_INFINITY : createdAt;
    const job: FakeImportJob = { id: randomUUID(), createdAt, startsAt, total: rows.length, errors: [], applied: false, apply: () => undefined };
    const accepted: Array<Record<string, any>> = [];
    for (const row of rows) {
      const attributes = row?.attributes ?? {};
      const email = typeof attributes.email === 'string' ? attributes.email : '';
      const refusal = !email.includes('@') ? 'One of email, phone_number or external_id is required.' : refusedInBulk.get(email.toLowerCase());
      if (refusal) job.errors.push({ email, detail: refusal, original: attributes });
      else accepted.push(attributes);
    }
    job.apply = () => {
      for (const attributes of accepted) upsertProfile(attributes.email, attributes);
      job.applied = true;
    };
    importJobs.set(job.id, job);
    return { status: 202, contentType: 'application/vnd.api+json', body: { data: importJobResource(job) } };
  }

  function importJobResource(job: FakeImportJob) {
    const elapsed = now() - job.startsAt;
    const complete = elapsed >= state.bulkJobMs;
    if (complete && !job.applied) job.apply();
    return {
      type: 'profile-bulk-import-job',
      id: job.id,
      attributes: {
        status: complete ? 'complete' : elapsed >= state.bulkJobMs / 2 ? 'processing' : 'queued',
        created_at: new Date(job.createdAt).toISOString(),
        total_count: job.total,
        completed_count: complete ? job.total - job.errors.length : 0,
        failed_count: complete ? job.errors.length : 0,
        completed_at: complete ? new Date(job.startsAt + state.bulkJobMs).toISOString() : null,
      },
    };
  }

  function handleImportJob(request: RecordedRequest, path: string): FakeReply {
    const match = /^\/api\/profile-bulk-import-jobs\/([^/]+)(\/import-errors)?$/.exec(path);
    const job = match ? importJobs.get(match[1]!) : undefined;
    if (!job) return apiError(404, 'not_found', 'Not found.', 'No such job.');
    if (!match![2]) return { status: 200, contentType: 'application/vnd.api+json', body: { data: importJobResource(job) } };
    return {
      status: 200,
      contentType: 'application/vnd.api+json',
      body: {
        data: job.errors.map((error) => ({
          type: 'import-error',
          id: randomUUID(),
          attributes: { code: 'invalid', title: 'Invalid input.', detail: error.detail, source: { pointer: '/data/attributes/email' }, original_payload: error.original },
        })),
        links: { next: null },
      },
    };
  }

  /** POST /api/event-bulk-create-jobs: up to 1,000 events, each de-duplicated by unique_id like POST /api/events. */
  function handleBulkEvents(request: RecordedRequest, key: string): FakeReply {
    const data = (request.body as any)?.data;
    const entries = data?.attributes?.['events-bulk-create']?.data;
    if (data?.type !== 'event-bulk-create-job' || !Array.isArray(entries)) {
      return apiError(400, 'invalid', 'Invalid input.', "'data.attributes.events-bulk-create.data' must list profiles with events.", '/data/attributes');
    }
    const count = entries.reduce((sum: number, entry: any) => sum + (entry?.attributes?.events?.data?.length ?? 0), 0);
    if (count > 1_000) return apiError(400, 'invalid', 'Invalid input.', 'A job may create at most 1,000 events.', '/data/attributes');
    for (const entry of entries) {
      const profileAttributes = entry?.attributes?.profile?.data?.attributes ?? {};
      for (const event of entry?.attributes?.events?.data ?? []) {
        const attributes = event?.attributes ?? {};
        const uniqueId: string | undefined = attributes.unique_id;
        if (uniqueId !== undefined && seenUniqueIds.has(uniqueId)) continue;
        if (uniqueId !== undefined) seenUniqueIds.add(uniqueId);
        upsertProfile(profileAttributes.email, profileAttributes);
        events.push({
          metric: attributes.metric?.data?.attributes?.name,
          email: profileAttributes.email,
          properties: attributes.properties ?? {},
          profileProperties: profileAttributes.properties ?? {},
          uniqueId,
          time: attributes.time,
          apiKey: key,
        });
      }
    }
    return { status: 202, contentType: 'application/vnd.api+json', body: { data: { type: 'event-bulk-create-job', id: randomUUID(), attributes: { status: 'queued' } } } };
  }

  const endpointOf = (request: RecordedRequest): KlaviyoEndpoint | undefined => {
    const path = request.path.replace(/\/$/, '');
    if (request.method === 'POST' && path === '/api/profile-bulk-import-jobs') return 'profile-bulk-import-jobs';
    if (request.method === 'GET' && /^\/api\/profile-bulk-import-jobs\/[^/]+\/import-errors$/.test(path)) return 'profile-bulk-import-errors';
    if (request.method === 'GET' && /^\/api\/profile-bulk-import-jobs\/[^/]+$/.test(path)) return 'profile-bulk-import-job';
    if (request.method === 'POST' && path === '/api/event-bulk-create-jobs') return 'event-bulk-create-jobs';
    if (request.method === 'GET' && path === '/api/accounts') return 'accounts';
    if (request.method === 'GET' && path === '/api/profiles') return 'profiles';
    if (request.method === 'POST' && path === '/api/profile-import') return 'profile-import';
    if (request.method === 'POST' && path === '/api/events') return 'events';
    return undefined;
  };

  const server = await startFakeServer(async (request) => {
    if (state.latencyMs > 0) await delay(state.latencyMs);
    const endpoint = endpointOf(request);
    if (!endpoint) return apiError(404, 'not_found', 'Not found.', `No route for ${request.method} ${request.path}.`);
    state.counts[endpoint] += 1;
    const failure = failureFor(request, endpoint);
    if (failure) return failureReply(failure);
    const key = /^Klaviyo-API-Key\s+(\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!key || !validKeys.has(key)) {
      return apiError(options.invalidKeyStatus ?? 401, 'authentication_failed', 'Incorrect authentication credentials.', 'Incorrect authentication credentials.');
    }
    if (!request.headers.revision) {
      return apiError(400, 'invalid', 'Invalid input.', 'The `revision` header is required.', '/headers/revision');
    }
    if (endpoint === 'accounts' && keysWithoutAccountsScope.has(key)) {
      return apiError(403, 'permission_denied', 'You do not have permission to perform this action.', 'This API key is missing required scopes: accounts:read.');
    }
    const limited = rateLimit(key, endpoint);
    if (limited) return limited;
    if (endpoint === 'accounts') {
      return {
        status: 200,
        contentType: 'application/vnd.api+json',
        body: {
          data: [
            {
              type: 'account',
              id: 'AbC123',
              attributes: { contact_information: { organization_name: 'Fake Shop', default_sender_email: 'owner@example.com' }, timezone: 'UTC', preferred_currency: 'USD' },
              links: { self: 'https://a.klaviyo.com/api/accounts/AbC123/' },
            },
          ],
          links: { self: 'https://a.klaviyo.com/api/accounts/', next: null, prev: null },
        },
      };
    }
    if (endpoint === 'profiles') return handleGetProfiles(request);
    if (endpoint === 'profile-bulk-import-jobs') return handleBulkImport(request);
    if (endpoint === 'profile-bulk-import-job' || endpoint === 'profile-bulk-import-errors') return handleImportJob(request, request.path.replace(/\/$/, ''));
    if (endpoint === 'event-bulk-create-jobs') return handleBulkEvents(request, key);
    const reply = endpoint === 'profile-import' ? handleProfileImport(request) : handleEvents(request, key);
    if (reply.status < 300) writes.add(endpoint, now());
    return reply;
  });

  return {
    /** The app's KLAVIYO_BASE_URL. */
    baseUrl: server.baseUrl,
    requests: server.requests,
    /** Profiles by email: `profiles.get(email)?.properties`. */
    profiles,
    /** A profile the account already has (a customer synced from the shop, say). */
    addProfile(email: string, attributes: { first_name?: string; last_name?: string } = {}) {
      return upsertProfile(email, attributes).profile;
    },
    events,
    validKeys,
    keysWithoutAccountsScope,
    set enforceRateLimits(enabled: boolean) {
      state.enforceRateLimits = enabled;
    },
    get enforceRateLimits() {
      return state.enforceRateLimits;
    },
    setLatency(milliseconds: number) {
      state.latencyMs = milliseconds;
    },
    /** Queues failures, each used once by the next matching request. */
    failNext(...failures: KlaviyoFailure[]) {
      queue.push(...failures);
    },
    /** Adds a standing rule: every request for which it returns a failure gets it. */
    failWhen(rule: (request: RecordedRequest) => KlaviyoFailure | undefined) {
      rules.push(rule);
    },
    clearFailures() {
      queue.length = 0;
      rules.length = 0;
    },
    /**
     * Accepts import jobs but leaves them queued until the returned release is called (an
     * account whose imports wait behind others at Klaviyo); then they run as usual.
     */
    holdImportJobs(): () => void {
      state.holdingImportJobs = true;
      return () => {
        state.holdingImportJobs = false;
        const releasedAt = now();
        for (const job of importJobs.values()) if (job.startsAt === Number.POSITIVE_INFINITY) job.startsAt = releasedAt;
      };
    },
    /** Makes bulk imports refuse this email (it appears in the job's import errors with `detail`). */
    refuseInBulk(email: string, detail = 'Invalid email address.') {
      refusedInBulk.set(email.toLowerCase(), detail);
    },
    /** Requests received per endpoint (including failed ones). */
    counts: state.counts,
    /** Successful writes of that endpoint within the last 60 s. */
    writesInLastMinute(endpoint: 'profile-import' | 'events') {
      return writes.count(endpoint, now());
    },
    /** How many 429 answers the fake has sent (forced and enforced). */
    get throttledCount() {
      return state.throttled;
    },
    close: server.close,
  };
}
export type FakeKlaviyo = Awaited<ReturnType<typeof startFakeKlaviyo>>;
