import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Structured JSON logs. Request logs carry method, URL and status only; the paths below
 * are censored wherever they appear, as a second line of defence for secrets.
 */
export const redactedLogPaths = [
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.confirmPassword',
  '*.token',
  '*.apiKey',
  '*.accessToken',
  '*.clientSecret',
  '*.secret',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: redactedLogPaths, censor: '[redacted]' } }, destination);
}
