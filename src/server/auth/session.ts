import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthLibrary } from './auth-library.ts';
import type { SessionUser } from '../../shared/auth/auth-schemas.ts';

/** The request's headers in the Fetch form better-auth reads. */
export function toFetchHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** Passes the cookies better-auth set (a new or refreshed session, or its removal) on to the reply. */
export function forwardSetCookies(reply: FastifyReply, headers: Headers | undefined): void {
  const cookies = headers?.getSetCookie() ?? [];
  if (cookies.length > 0) {
    const existing = reply.getHeader('set-cookie');
    const previous = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
    reply.header('set-cookie', [...previous, ...cookies]);
  }
}

/** Resolves the signed-in user from the session cookie, forwarding a refreshed cookie. */
export async function readSessionUser(
  auth: AuthLibrary,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SessionUser | null> {
  if (!request.headers.cookie) return null;
  const result = await auth.api.getSession({ headers: toFetchHeaders(request), returnHeaders: true });
  forwardSetCookies(reply, result.headers);
  const session = result.response;
  if (!session) return null;
  return { id: session.user.id, email: session.user.email, fullName: session.user.name };
}
