import { z } from 'zod';
import { klaviyoScopeInWords, listInWords, scopesNamedIn } from '../../../shared/credentials/klaviyo-scopes.ts';
import { vendorLimitMessages } from '../../../shared/flows/flow-messages.ts';
import { KLAVIYO_MAX_PROFILE_WRITE_BYTES } from '../../../shared/flows/text-rules.ts';
import { ServiceError, withoutSecret } from '../service-error.ts';
import { callService, type ServiceAnswer, type ServiceRequest } from '../service-http.ts';
import type { ProfilePropertyValue } from '../../../shared/flows/recommendation-schemas.ts';

/**
 * The two Klaviyo writes the engine makes (docs/product/service-contracts.md §3, revision
 * 2026-07-15): one profile import carrying all of an event's texts, and optionally one
 * event that can start a Klaviyo flow, de-duplicated by `unique_id`.
 */
export const KLAVIYO_REVISION = '2026-07-15';

export interface KlaviyoConnection {
  baseUrl: string;
  /** The private API key, or with an OAuth connection (`bearer`) its current access token. */
  apiKey: string;
  /** Set for an OAuth connection: calls carry `Authorization: Bearer`. */
  bearer?: {
    /** Told when Klaviyo refused the token (401), so the next try renews it first. */
    tokenRefused(token: string): Promise<void>;
  };
  timeoutMs: number;
  /** The app's clock, for a Retry-After given as a date. */
  now?: () => Date;
}

export interface ProfileImport {
  email: string;
  firstName: string | null;
  lastName: string | null;
  properties: Record<string, ProfilePropertyValue>;
  /** Properties to remove from the profile in the same write (`meta.patch_properties.unset`). */
  unset?: string[];
}

export interface ProfileImportResult {
  profileId: string;
  /** 201: Klaviyo made a new profile; 200: it updated one. */
  created: boolean;
}

export interface KlaviyoEvent {
  metricName: string;
  email: string;
  properties: Record<string, ProfilePropertyValue>;
  uniqueId: string;
  time: string;
}

const profileAnswerSchema = z.looseObject({ data: z.looseObject({ id: z.string(), type: z.string().optional() }) });
const errorAnswerSchema = z.looseObject({
  errors: z
    .array(z.looseObject({ code: z.string().nullish(), title: z.string().nullish(), detail: z.string().nullish(), source: z.unknown().optional() }))
    .nullish(),
});

function headers(connection: KlaviyoConnection): Record<string, string> {
  return {
    authorization: connection.bearer ? `Bearer ${connection.apiKey}` : `Klaviyo-API-Key ${connection.apiKey}`,
    revision: KLAVIYO_REVISION,
    accept: 'application/vnd.api+json',
    'content-type': 'application/vnd.api+json',
  };
}

function request(connection: KlaviyoConnection, path: string, init: { method: 'GET' | 'POST'; body?: unknown }, signal: AbortSignal | undefined): ServiceRequest {
  return {
    url: `${connection.baseUrl}${path}`,
    method: init.method,
    headers: headers(connection),
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    timeoutMs: connection.timeoutMs,
    signal,
    now: connection.now,
  };
}

/**
 * A successful answer's body in `schema`'s shape; Klaviyo's error, or invalid_response,
 * otherwise. `what` names the answer in the error, `purpose` what the call was for.
 */
async function readAnswer<T>(answer: ServiceAnswer, schema: z.ZodType<T>, connection: KlaviyoConnection, named: { what: string; purpose: string }): Promise<T> {
  const { what, purpose } = named;
  if (!answer.ok) throw await refusalOf(answer, connection, purpose);
  const unexpected = { message: `${what} could not be read, so whether it took effect is unknown; replay the event from the event log to try again`, kind: 'permanent' as const };
  const parsed = schema.safeParse(await answer.json(unexpected));
  if (!parsed.success) throw new ServiceError('klaviyo', 'invalid_response', unexpected.message, { kind: unexpected.kind, status: answer.status });
  return parsed.data;
}

/** Creates or updates the profile by email; absent name fields are left as they are. */
export async function importProfile(connection: KlaviyoConnection, profile: ProfileImport, signal?: AbortSignal): Promise<ProfileImportResult> {
  const attributes: Record<string, unknown> = { email: profile.email, properties: profile.properties };
  if (profile.firstName) attributes.first_name = profile.firstName;
  if (profile.lastName) attributes.last_name = profile.lastName;
  const data: Record<string, unknown> = { type: 'profile', attributes };
  if (profile.unset && profile.unset.length > 0) data.meta = { patch_properties: { unset: profile.unset } };
  const call = request(connection, '/api/profile-import', { method: 'POST', body: { data } }, signal);
  // Klaviyo refuses a larger write whatever is in it: it is not sent, and a retry would fail the same way.
  const bytes = Buffer.byteLength(call.body ?? '');
  if (bytes > KLAVIYO_MAX_PROFILE_WRITE_BYTES) {
    throw new ServiceError('klaviyo', 'bad_request', vendorLimitMessages.klaviyoProfileWriteTooLarge(bytes, KLAVIYO_MAX_PROFILE_WRITE_BYTES), { kind: 'permanent' });
  }
  return callService('klaviyo', call, async (answer) => {
    const profile = await readAnswer(answer, profileAnswerSchema, connection, { what: 'its answer to the profile write', purpose: 'writing profiles' });
    return { profileId: profile.data.id, created: answer.status === 201 };
  });
}

/**
 * Removes properties from the profile of `email` (a shopper's erasure): a profile import
 * whose `meta.patch_properties.unset` names them. Klaviyo creates a bare profile for an
 * address it does not know, so the caller asks only when the shopper had texts written.
 */
export async function unsetProfileProperties(connection: KlaviyoConnection, email: string, propertyNames: string[], signal?: AbortSignal): Promise<void> {
  const body = { data: { type: 'profile', attributes: { email }, meta: { patch_properties: { unset: propertyNames } } } };
  await callService('klaviyo', request(connection, '/api/profile-import', { method: 'POST', body }, signal), async (answer) => {
    await readAnswer(answer, profileAnswerSchema, connection, { what: 'its answer to the profile change', purpose: 'erasing texts from profiles' });
  });
}

const profileListSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      attributes: z.looseObject({ first_name: z.string().nullish(), last_name: z.string().nullish() }).nullish(),
    }),
  ),
});

/** A profile the account already has: its id and the names Klaviyo keeps for it. */
export interface KnownProfile {
  profileId: string;
  firstName: string | null;
  lastName: string | null;
}

/**
 * The account's profile with this email, or null (GET /api/profiles with an equals
 * filter). Klaviyo's filter strings quote with double quotes; a quote or backslash in the
 * email is escaped so it cannot end the string.
 */
export async function findProfileByEmail(connection: KlaviyoConnection, email: string, signal?: AbortSignal): Promise<KnownProfile | null> {
  const quoted = email.replace(/["\\]/g, (character) => `\\${character}`);
  const query = new URLSearchParams({ filter: `equals(email,"${quoted}")`, 'fields[profile]': 'email,first_name,last_name', 'page[size]': '1' });
  return callService('klaviyo', request(connection, `/api/profiles?${query}`, { method: 'GET' }, signal), async (answer) => {
    const profile = (await readAnswer(answer, profileListSchema, connection, { what: 'its answer to the profile lookup', purpose: 'looking up shoppers' })).data[0];
    if (!profile) return null;
    return { profileId: profile.id, firstName: profile.attributes?.first_name || null, lastName: profile.attributes?.last_name || null };
  });
}

/** Emails one look-up may name: a page holds at most 100 profiles (Klaviyo OpenAPI, GET /api/profiles (getProfiles), `page[size]` "Max: 100"). */
export const MAX_EMAILS_PER_LOOKUP = 100;

/**
 * The account's profiles with any of these emails (GET /api/profiles with an `any`
 * filter, one page of 100), by lower-cased email; an email without a profile is absent.
 */
export async function findProfilesByEmails(connection: KlaviyoConnection, emails: string[], signal?: AbortSignal): Promise<Map<string, KnownProfile>> {
  const quoted = emails.map((email) => `"${email.replace(/["\\]/g, (character) => `\\${character}`)}"`);
  const query = new URLSearchParams({ filter: `any(email,[${quoted.join(',')}])`, 'fields[profile]': 'email,first_name,last_name', 'page[size]': String(MAX_EMAILS_PER_LOOKUP) });
  return callService('klaviyo', request(connection, `/api/profiles?${query}`, { method: 'GET' }, signal), async (answer) => {
    const profiles = (await readAnswer(answer, profileListWithEmailSchema, connection, { what: 'its answer to the profile lookup', purpose: 'looking up shoppers' })).data;
    return new Map(
      profiles.flatMap((profile) =>
        profile.attributes?.email
          ? [[profile.attributes.email.toLowerCase(), { profileId: profile.id, firstName: profile.attributes.first_name || null, lastName: profile.attributes.last_name || null }]]
          : [],
      ),
    );
  });
}

const profileListWithEmailSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      attributes: z.looseObject({ email: z.string().nullish(), first_name: z.string().nullish(), last_name: z.string().nullish() }).nullish(),
    }),
  ),
});

/** Records a Klaviyo event on the profile; 202 with no body is success. */
export async function createEvent(connection: KlaviyoConnection, event: KlaviyoEvent, signal?: AbortSignal): Promise<void> {
  const body = {
    data: {
      type: 'event',
      attributes: {
        properties: event.properties,
        metric: { data: { type: 'metric', attributes: { name: event.metricName } } },
        profile: { data: { type: 'profile', attributes: { email: event.email } } },
        unique_id: event.uniqueId,
        time: event.time,
      },
    },
  };
  await callService('klaviyo', request(connection, '/api/events', { method: 'POST', body }, signal), async (answer) => {
    if (!answer.ok) throw await refusalOf(answer, connection, 'sending Klaviyo events');
  });
}

/**
 * Klaviyo's refusal. An OAuth access token refused (401) is renewed before the next try,
 * which then goes out: the event waits for it instead of failing on the owner's key.
 */
async function refusalOf(answer: ServiceAnswer, connection: KlaviyoConnection, purpose: string): Promise<ServiceError> {
  const bodyText = await answer.text();
  if (answer.status === 401 && connection.bearer) {
    await connection.bearer.tokenRefused(connection.apiKey).catch(() => undefined);
    return new ServiceError('klaviyo', 'unauthorized', "the connection's access token was refused; it is renewed before the next try", { kind: 'retryable', status: 401 });
  }
  return errorFromAnswer(answer, bodyText, connection.apiKey, purpose);
}

/**
 * Klaviyo's refusal as the owner should read it: Klaviyo's own details (with the field it
 * pointed at), and for a refused key or a missing permission, what to do about it.
 * `purpose` says what the call was for ("bulk delivery"), to name what needs the permission.
 */
function errorFromAnswer(answer: ServiceAnswer, bodyText: string, apiKey: string, purpose: string): ServiceError {
  let details: string[] = [];
  try {
    const parsed = errorAnswerSchema.parse(JSON.parse(bodyText));
    details = (parsed.errors ?? []).map((error) => {
      const pointer = (error.source as { pointer?: unknown } | undefined)?.pointer;
      const text = error.detail || error.title || error.code || '';
      // A pointer into the attributes says which field Klaviyo refused; the bare /data/ adds nothing.
      return typeof pointer === 'string' && pointer.replace(/\/+$/, '') !== '/data' && pointer ? `${text} (${pointer})` : text;
    });
  } catch {
    details = [];
  }
  const said = withoutSecret(details.filter(Boolean).join('; ') || `HTTP ${answer.status}`, apiKey);
  if (answer.status === 401) return answer.error(`the API key was refused (${said}); save a valid private API key in API settings, then replay the event`);
  if (answer.status === 403) {
    const scopes = scopesNamedIn(said);
    const lacking = scopes.length > 0 ? listInWords(scopes.map(klaviyoScopeInWords)) : 'a permission';
    return answer.error(`the API key lacks ${lacking} that ${purpose} needs; edit the key in Klaviyo (Settings → API keys), then replay the event (Klaviyo said: ${said})`);
  }
  return answer.error(said);
}

/**
 * Klaviyo's bulk writes (docs/product/service-contracts.md §3): a profile import job of
 * up to 10,000 profiles (5 MB), whose outcome is read from the job and its import errors,
 * and an event bulk create job of up to 1,000 events, de-duplicated by `unique_id` like
 * single events. The limits are Klaviyo's (OpenAPI, revision 2026-07-15, as the
 * klaviyo-api SDK carries it): POST /api/profile-bulk-import-jobs (bulkImportProfiles)
 * "Accepts up to 10,000 profiles per request. The maximum allowed payload size is 5MB";
 * POST /api/event-bulk-create-jobs (bulkCreateEvents) "Accepts up to 1,000 events per
 * request".
 */
export const MAX_PROFILES_PER_IMPORT_JOB = 10_000;
export const MAX_IMPORT_JOB_BYTES = 5 * 1024 * 1024;
export const MAX_EVENTS_PER_BULK_JOB = 1_000;

function profileAttributes(profile: ProfileImport): Record<string, unknown> {
  const attributes: Record<string, unknown> = { email: profile.email, properties: profile.properties };
  if (profile.firstName) attributes.first_name = profile.firstName;
  if (profile.lastName) attributes.last_name = profile.lastName;
  return attributes;
}

/** The body of a profile import job for these profiles (the caller keeps it under MAX_IMPORT_JOB_BYTES). */
export function profileImportJobBody(profiles: ProfileImport[]): string {
  return JSON.stringify({
    data: {
      type: 'profile-bulk-import-job',
      attributes: { profiles: { data: profiles.map((profile) => ({ type: 'profile', attributes: profileAttributes(profile) })) } },
    },
  });
}

const importJobSchema = z.looseObject({
  data: z.looseObject({
    id: z.string(),
    attributes: z.looseObject({
      // Klaviyo's definition has these four; any other is an answer Flowsmith cannot act on.
      status: z.enum(['queued', 'processing', 'complete', 'cancelled']),
      total_count: z.number().int().nullish(),
      completed_count: z.number().int().nullish(),
      failed_count: z.number().int().nullish(),
    }),
  }),
});

export interface ImportJob {
  id: string;
  status: 'queued' | 'processing' | 'complete' | 'cancelled';
  failedCount: number;
}

function toImportJob(answer: z.infer<typeof importJobSchema>): ImportJob {
  return { id: answer.data.id, status: answer.data.attributes.status, failedCount: answer.data.attributes.failed_count ?? 0 };
}

/** Starts a profile import job (202); the profiles are written when Klaviyo completes it. */
export async function createProfileImportJob(connection: KlaviyoConnection, profiles: ProfileImport[], signal?: AbortSignal): Promise<ImportJob> {
  const call = { ...request(connection, '/api/profile-bulk-import-jobs', { method: 'POST' }, signal), body: profileImportJobBody(profiles) };
  return callService('klaviyo', call, async (answer) => toImportJob(await readAnswer(answer, importJobSchema, connection, { what: 'its answer about the import job', purpose: 'bulk delivery' })));
}

export async function getProfileImportJob(connection: KlaviyoConnection, jobId: string, signal?: AbortSignal): Promise<ImportJob> {
  return callService('klaviyo', request(connection, `/api/profile-bulk-import-jobs/${encodeURIComponent(jobId)}`, { method: 'GET' }, signal), async (answer) =>
    toImportJob(await readAnswer(answer, importJobSchema, connection, { what: 'its answer about the import job', purpose: 'following a bulk import job' })),
  );
}

const importErrorsSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      attributes: z.looseObject({
        detail: z.string().nullish(),
        title: z.string().nullish(),
        original_payload: z.looseObject({ email: z.string().nullish() }).nullish(),
      }),
    }),
  ),
  links: z.looseObject({ next: z.string().nullish() }).nullish(),
});

/** Import errors a page holds at most (Klaviyo's definition: page[size] up to 100, 20 when not given). */
export const IMPORT_ERRORS_PAGE_SIZE = 100;
/** A job holds at most 10,000 rows, so its errors fill at most this many pages; more means a cursor that does not move on. */
const MAX_IMPORT_ERROR_PAGES = Math.ceil(MAX_PROFILES_PER_IMPORT_JOB / IMPORT_ERRORS_PAGE_SIZE) + 1;

export interface ImportError {
  /** The email of the refused row; null when Klaviyo's error does not carry it. */
  email: string | null;
  reason: string;
}

/**
 * The rows a completed job refused: the email each named, and Klaviyo's reason, from
 * every page. Klaviyo pages them by cursor; its `links.next` is an absolute URL on
 * Klaviyo's own host, so only its cursor is taken, and asked of the connection's base
 * URL (a proxy's or a test's). `beforePage` runs before each request (its rate slot).
 */
export async function listImportErrors(
  connection: KlaviyoConnection,
  jobId: string,
  signal?: AbortSignal,
  beforePage: () => Promise<void> = async () => undefined,
): Promise<ImportError[]> {
  const errors: ImportError[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; ; page += 1) {
    if (page >= MAX_IMPORT_ERROR_PAGES) {
      throw new ServiceError('klaviyo', 'invalid_response', `its list of import errors did not end after ${MAX_IMPORT_ERROR_PAGES} pages`, { kind: 'permanent' });
    }
    const query = new URLSearchParams({ 'page[size]': String(IMPORT_ERRORS_PAGE_SIZE) });
    if (cursor) query.set('page[cursor]', cursor);
    await beforePage();
    const answer = await callService(
      'klaviyo',
      request(connection, `/api/profile-bulk-import-jobs/${encodeURIComponent(jobId)}/import-errors?${query}`, { method: 'GET' }, signal),
      async (reply) => readAnswer(reply, importErrorsSchema, connection, { what: 'its list of import errors', purpose: "reading a bulk job's import errors" }),
    );
    for (const error of answer.data) {
      errors.push({
        email: error.attributes.original_payload?.email ?? null,
        reason: withoutSecret(error.attributes.detail || error.attributes.title || 'refused', connection.apiKey),
      });
    }
    cursor = nextCursor(answer.links?.next);
    if (!cursor) return errors;
    if (seenCursors.has(cursor)) throw new ServiceError('klaviyo', 'invalid_response', 'its list of import errors pointed back at a page already read', { kind: 'permanent' });
    seenCursors.add(cursor);
  }
}

/** The page[cursor] of Klaviyo's `links.next`; null on the last page. */
function nextCursor(next: string | null | undefined): string | null {
  if (!next) return null;
  try {
    const cursor = new URL(next).searchParams.get('page[cursor]');
    if (cursor) return cursor;
  } catch {
    // Not a URL: reported below like a link without a cursor.
  }
  throw new ServiceError('klaviyo', 'invalid_response', 'its list of import errors named a next page without a cursor', { kind: 'permanent' });
}

/** Creates up to MAX_EVENTS_PER_BULK_JOB events in one job (202). */
export async function createEventBulkJob(connection: KlaviyoConnection, events: KlaviyoEvent[], signal?: AbortSignal): Promise<void> {
  const body = {
    data: {
      type: 'event-bulk-create-job',
      attributes: {
        'events-bulk-create': {
          data: events.map((event) => ({
            type: 'event-bulk-create',
            attributes: {
              profile: { data: { type: 'profile', attributes: { email: event.email } } },
              events: {
                data: [
                  {
                    type: 'event',
                    attributes: {
                      properties: event.properties,
                      metric: { data: { type: 'metric', attributes: { name: event.metricName } } },
                      unique_id: event.uniqueId,
                      time: event.time,
                    },
                  },
                ],
              },
            },
          })),
        },
      },
    },
  };
  await callService('klaviyo', request(connection, '/api/event-bulk-create-jobs', { method: 'POST', body }, signal), async (answer) => {
    if (!answer.ok) throw await refusalOf(answer, connection, 'sending Klaviyo events in bulk');
  });
}

/**
 * Klaviyo's predictive analytics of a profile (getProfiles with
 * `additional-fields[profile]=predictive_analytics`). Each figure is null where Klaviyo has
 * none: an account without predictive analytics answers them all null.
 */
export interface PredictiveAnalytics {
  historicClv: number | null;
  predictedClv: number | null;
  churnProbability: number | null;
  expectedDateOfNextOrder: string | null;
}

const nullableNumber = z.number().nullish().transform((value) => (typeof value === 'number' && Number.isFinite(value) ? value : null));
const predictiveListSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      attributes: z
        .looseObject({
          predictive_analytics: z
            .looseObject({
              historic_clv: nullableNumber,
              predicted_clv: nullableNumber,
              churn_probability: nullableNumber,
              expected_date_of_next_order: z.string().nullish(),
            })
            .nullish(),
        })
        .nullish(),
    }),
  ),
});

/** The shopper's predictive figures, or null when Klaviyo has no profile for the address. */
export async function findPredictiveAnalytics(connection: KlaviyoConnection, email: string, signal?: AbortSignal): Promise<PredictiveAnalytics | null> {
  const quoted = email.replace(/["\\]/g, (character) => `\\${character}`);
  const query = new URLSearchParams({ filter: `equals(email,"${quoted}")`, 'additional-fields[profile]': 'predictive_analytics', 'page[size]': '1' });
  return callService('klaviyo', request(connection, `/api/profiles?${query}`, { method: 'GET' }, signal), async (answer) => {
    const profile = (await readAnswer(answer, predictiveListSchema, connection, { what: "its answer about the profile's predictive analytics", purpose: 'reading predictive analytics' })).data[0];
    if (!profile) return null;
    const figures = profile.attributes?.predictive_analytics;
    return {
      historicClv: figures?.historic_clv ?? null,
      predictedClv: figures?.predicted_clv ?? null,
      churnProbability: figures?.churn_probability ?? null,
      expectedDateOfNextOrder: figures?.expected_date_of_next_order ?? null,
    };
  });
}
