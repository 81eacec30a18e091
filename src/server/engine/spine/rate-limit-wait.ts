import { serviceTitles } from '../../integrations/service-error.ts';

/**
 * A rate limit of ours (Klaviyo's per account, Shopify's per shop) frees its next slot
 * only at `until`, later than a worker slot may wait: the event waits for it instead
 * (status `waiting`, not a failed try) and the timer sweep sends its job then.
 */
export class RateLimitWait extends Error {
  readonly service: 'klaviyo' | 'shopify';
  readonly until: Date;

  constructor(service: 'klaviyo' | 'shopify', until: Date) {
    super(`${serviceTitles[service]}'s rate limit frees a slot at ${until.toISOString()}`);
    this.name = 'RateLimitWait';
    this.service = service;
    this.until = until;
  }
}
