import { createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../shared/flows/flow-signing.ts';

/**
 * The signature of generic senders (docs/decisions/0012-generic-sender-signatures.md),
 * Stripe's scheme: `X-Flowsmith-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">`. Signing the time with the body lets the receiver refuse an old
 * request replayed by whoever captured it; the window is 5 minutes by the app's clock.
 */
export const FLOW_SIGNATURE_HEADER_NAME = 'x-flowsmith-signature';

export type FlowSignatureOutcome = 'valid' | 'missing' | 'malformed' | 'expired' | 'mismatch';
/** A flow's check at intake: the outcome, or that the flow asks for none, or that its secrets could not be read. */
export type FlowSignatureCheck = FlowSignatureOutcome | 'not_required' | 'unreadable';

export function signFlowsmithBody(body: Buffer | string, secret: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hmacOf(body, secret, timestampSeconds).toString('hex')}`;
}

function hmacOf(body: Buffer | string, secret: string, timestampSeconds: number): Buffer {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest();
}

/** The header's time and its v1 signatures (several are allowed, as in Stripe's); null when it is not that shape. */
export function parseSignatureHeader(header: string): { timestamp: number; signatures: Buffer[] } | null {
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator === -1) return null;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== null) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return null;
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes (a future v2) are ignored, so senders can send both during a change.
  }
  if (timestamp === null || signatures.length === 0 || signatures.length > 8) return null;
  return { timestamp, signatures };
}

/**
 * Checks a request's header against every secret still valid, before the body is parsed,
 * in constant time. The signature is checked before the time, so "expired" is said only
 * of a request that really was signed with the flow's secret.
 */
export function verifyFlowSignature(body: Buffer, header: string | undefined, secrets: readonly string[], nowSeconds: number): FlowSignatureOutcome {
  if (header === undefined || header.trim() === '') return 'missing';
  const parsed = parseSignatureHeader(header);
  if (!parsed) return 'malformed';
  let matched = false;
  for (const secret of secrets) {
    const expected = hmacOf(body, secret, parsed.timestamp);
    // Every secret and signature is compared, so the time taken does not say which matched.
    for (const received of parsed.signatures) if (timingSafeEqual(received, expected)) matched = true;
  }
  if (!matched) return 'mismatch';
  return Math.abs(nowSeconds - parsed.timestamp) > SIGNATURE_TOLERANCE_SECONDS ? 'expired' : 'valid';
}

/** How far the header's time is before `nowSeconds` (negative: after), for the rejection reason. */
export function signatureAgeSeconds(header: string, nowSeconds: number): number {
  const parsed = parseSignatureHeader(header);
  return parsed ? nowSeconds - parsed.timestamp : 0;
}
