import { z } from 'zod';
import path from 'node:path';

/**
 * The whole configuration contract (PRODUCT.md section 5): one variable per concern,
 * unset means the embedded default. Parsed once at start so that a bad value stops the
 * app with a clear message instead of failing later in some request.
 */
const urlWithoutTrailingSlash = (name: string) =>
  z
    .url({ message: `${name} must be a URL such as https://example.com` })
    .transform((value) => value.replace(/\/+$/, ''));

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
});

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
  };
}
