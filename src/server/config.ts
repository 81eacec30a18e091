import { z } from 'zod';
import { isIP } from 'node:net';
import path from 'node:path';

/**
 * The whole configuration contract (docs/product/product-rules.md §5): one variable per
 * concern, unset means the embedded default. Parsed once at start so that a bad value
 * stops the app with a clear message instead of failing later in some request.
 */
const urlWithoutTrailingSlash = (name: string) =>
  z
    .url({ message: `${name} must be a URL such as https://example.com` })
    .transform((value) => value.replace(/\/+$/, ''));

/**
 * Which proxies in front may name the client in X-Forwarded-For (docs/decisions/0016):
 * false (the socket's address is the client), true (any), the number of proxies in
 * front, or the proxies' addresses and CIDR ranges (plus proxy-addr's names loopback,
 * linklocal and uniquelocal). `true` and a number are safe only when nothing but those
 * proxies can reach the app; a list of addresses is safe either way.
 */
export type TrustProxy = boolean | number | string[];

/** The setting in the form Fastify's `trustProxy` takes. */
export type FastifyTrustProxy = boolean | string[] | ((address: string, hop: number) => boolean);

/**
 * Fastify refuses a bare number (it cannot tell that the nearest peer is a proxy), so a
 * count of proxies becomes the function proxy-addr calls for each hop, from the socket
 * outwards: the first `count` hops are the proxies.
 */
export function fastifyTrustProxy(setting: TrustProxy): FastifyTrustProxy {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

const MAX_PROXY_HOPS = 100;
const namedProxyRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);
const trustProxyHelp =
  'TRUST_PROXY must be true, false, the number of proxies in front of the app (1, 2, …) or a comma-separated list of their addresses or CIDR ranges (e.g. 10.0.0.1,192.168.0.0/16)';

function isProxyAddressOrRange(entry: string): boolean {
  if (namedProxyRanges.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

const trustProxySchema = z.string().transform((value, context): TrustProxy => {
  const text = value.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops >= 1 && hops <= MAX_PROXY_HOPS) return hops;
    context.addIssue({ code: 'custom', message: `${trustProxyHelp}; a number of proxies must be between 1 and ${MAX_PROXY_HOPS}` });
    return z.NEVER;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isProxyAddressOrRange(entry));
  if (bad.length > 0) {
    const shown = bad.map((entry) => (entry === '' ? '(an empty entry)' : JSON.stringify(entry.slice(0, 60)))).join(', ');
    context.addIssue({ code: 'custom', message: `${trustProxyHelp}; not an address or range: ${shown}` });
    return z.NEVER;
  }
  return entries;
});

const environmentSchema = z.object({
  PORT: z.coerce
    .number({ message: 'PORT must be a number' })
    .int('PORT must be a whole number')
    .min(0, 'PORT must be between 0 and 65535')
    .max(65535, 'PORT must be between 0 and 65535')
    .default(3000),
  PUBLIC_URL: urlWithoutTrailingSlash('PUBLIC_URL').optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  CREDENTIALS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, {
      message: 'CREDENTIALS_KEY must be 32 bytes encoded as base64 (openssl rand -base64 32)',
    })
    .optional(),
  AUTH_SECRET: z.string().min(32, 'AUTH_SECRET must be at least 32 characters').optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Flowsmith <no-reply@flowsmith.local>'),
  OPENAI_BASE_URL: urlWithoutTrailingSlash('OPENAI_BASE_URL').default('https://api.openai.com/v1'),
  KLAVIYO_BASE_URL: urlWithoutTrailingSlash('KLAVIYO_BASE_URL').default('https://a.klaviyo.com'),
  SHOPIFY_BASE_URL: urlWithoutTrailingSlash('SHOPIFY_BASE_URL').optional(),
  ROLE: z.enum(['all', 'web', 'worker'], { message: 'ROLE must be all, web or worker' }).default('all'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: trustProxySchema.optional(),
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  SHOPIFY_API_KEY: z.string().trim().max(200).regex(/^[\x21-\x7e]+$/, 'SHOPIFY_API_KEY must be the app\'s client ID, one word').optional(),
  SHOPIFY_API_SECRET: z.string().trim().max(500).regex(/^[\x21-\x7e]+$/, 'SHOPIFY_API_SECRET must be the app\'s client secret, one word').optional(),
  KLAVIYO_CLIENT_ID: z.string().trim().max(200).regex(/^[\x21-\x7e]+$/, 'KLAVIYO_CLIENT_ID must be the OAuth app\'s client ID, one word').optional(),
  KLAVIYO_CLIENT_SECRET: z.string().trim().max(500).regex(/^[\x21-\x7e]+$/, 'KLAVIYO_CLIENT_SECRET must be the OAuth app\'s client secret, one word').optional(),
  KLAVIYO_OAUTH_BASE_URL: urlWithoutTrailingSlash('KLAVIYO_OAUTH_BASE_URL').default('https://www.klaviyo.com'),
});

/** A pair of variables that only work together: both set, or neither. */
function bothOrNeither(env: Record<string, unknown>, first: string, second: string): string | null {
  return Boolean(env[first]) === Boolean(env[second]) ? null : `${first} and ${second} are set together (the app's client ID and secret), or neither`;
}

export type AppRole = 'all' | 'web' | 'worker';

export interface AppConfig {
  port: number;
  publicUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  credentialsKey: string | undefined;
  authSecret: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  shopifyBaseUrl: string | undefined;
  role: AppRole;
  logLevel: string;
  /** TRUST_PROXY as set: whom to believe about the client's address. */
  trustProxySetting: TrustProxy;
  /** The same as Fastify's `trustProxy` option takes it (request.ip follows it). */
  trustProxy: FastifyTrustProxy;
  /** Bearer token for GET /metrics; unset, only the loopback address may read it. */
  metricsToken: string | undefined;
  /** The deployment's own Shopify app (docs/decisions/0048-connect-by-oauth.md): owners connect their shop by OAuth. */
  shopifyApp: { clientId: string; clientSecret: string } | null;
  /** The deployment's own Klaviyo OAuth app: owners connect Klaviyo by OAuth. */
  klaviyoApp: { clientId: string; clientSecret: string } | null;
  /** Where the owner's browser approves a Klaviyo connection (token and revoke are under klaviyoBaseUrl). */
  klaviyoOAuthBaseUrl: string;
}

export class ConfigError extends Error {}

/** Empty strings count as unset, as they do in most shells' `VAR= cmd`. */
function withoutEmptyValues(environment: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = environmentSchema.safeParse(withoutEmptyValues(environment));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const env = parsed.data;
  const unpaired = [bothOrNeither(env, 'SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET'), bothOrNeither(env, 'KLAVIYO_CLIENT_ID', 'KLAVIYO_CLIENT_SECRET')].filter(Boolean);
  if (unpaired.length > 0) throw new ConfigError(`Invalid configuration:\n${unpaired.map((problem) => `  ${problem}`).join('\n')}`);
  return {
    port: env.PORT,
    publicUrl: env.PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(env.DATA_DIR),
    credentialsKey: env.CREDENTIALS_KEY,
    authSecret: env.AUTH_SECRET,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    openaiBaseUrl: env.OPENAI_BASE_URL,
    klaviyoBaseUrl: env.KLAVIYO_BASE_URL,
    shopifyBaseUrl: env.SHOPIFY_BASE_URL,
    role: env.ROLE,
    logLevel: env.LOG_LEVEL,
    trustProxySetting: env.TRUST_PROXY ?? false,
    trustProxy: fastifyTrustProxy(env.TRUST_PROXY ?? false),
    metricsToken: env.METRICS_TOKEN,
    shopifyApp: env.SHOPIFY_API_KEY && env.SHOPIFY_API_SECRET ? { clientId: env.SHOPIFY_API_KEY, clientSecret: env.SHOPIFY_API_SECRET } : null,
    klaviyoApp: env.KLAVIYO_CLIENT_ID && env.KLAVIYO_CLIENT_SECRET ? { clientId: env.KLAVIYO_CLIENT_ID, clientSecret: env.KLAVIYO_CLIENT_SECRET } : null,
    klaviyoOAuthBaseUrl: env.KLAVIYO_OAUTH_BASE_URL,
  };
}
