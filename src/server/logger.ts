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

/**
 * A flow's webhook URL is a secret (anyone holding it can send events), so its key is cut
 * to a recognisable prefix in every logged request URL, as is the handler page's check.
 */
export function loggableUrl(url: string): string {
  return url.replace(/^(\/api\/(?:webhooks|webhook-status)\/[^/?#]+\/)([^/?#]{1,4})[^/?#]*/, '$1$2…');
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: redactedLogPaths, censor: '[redacted]' },
      // Fastify's own request serializer, with the URL made loggable.
      serializers: {
        req: (request: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
          method: request.method,
          url: loggableUrl(request.url ?? ''),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
    },
    destination,
  );
}
