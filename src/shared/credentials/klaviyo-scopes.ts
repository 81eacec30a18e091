/**
 * The scopes a Klaviyo private API key needs for what Flowsmith calls, per Klaviyo's own
 * definition of each operation (revision 2026-07-15; a test holds this list to it):
 * - accounts:read: the key check (GET /api/accounts);
 * - profiles:read: known-shopper look-ups, and reading a bulk job and its import errors;
 * - profiles:write: profile writes, single and in bulk;
 * - lists:read, lists:write: bulk import jobs (creating one needs lists:write, reading one
 *   lists:read, even when no list is named);
 * - events:write: the optional Klaviyo event, single and in bulk.
 */
export const klaviyoKeyScopes = ['accounts:read', 'events:write', 'lists:read', 'lists:write', 'profiles:read', 'profiles:write'] as const;

export type KlaviyoScope = (typeof klaviyoKeyScopes)[number];

/**
 * The scopes the key check can see with a cheap read (a GET answers 403 without them);
 * write scopes cannot be checked without writing, so the texts name them instead.
 */
export const klaviyoProbedScopes = ['accounts:read', 'profiles:read', 'lists:read'] as const satisfies readonly KlaviyoScope[];

const areas: Record<string, string> = { accounts: 'Accounts', events: 'Events', lists: 'Lists', profiles: 'Profiles' };

/** A scope in the words of Klaviyo's API key screen: "Lists write access (lists:write)". */
export function klaviyoScopeInWords(scope: string): string {
  const [area = scope, access] = scope.split(':');
  return `${areas[area] ?? area} ${access === 'write' ? 'write' : 'read'} access (${scope})`;
}

/** "A, B and C". */
export function listInWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The scopes named in Klaviyo's 403 detail ("… missing required scopes: lists:write,
 * profiles:write."), or none when it names none.
 */
export function scopesNamedIn(detail: string): string[] {
  return [...new Set(detail.match(/\b[a-z][a-z-]*:(?:read|write)\b/g) ?? [])];
}
