import { checkKlaviyoType, klaviyoErrorType } from './klaviyo-definition.ts';
import { checkOpenAiType } from './openai-definition.ts';
import { adminSchema, checkPixelType } from './shopify-definition.ts';
import { SHOPIFY_API_VERSION } from '../../src/server/integrations/shopify/shopify-admin.ts';

/**
 * Vitest global set-up: generates (or reads from the cache) every vendor definition
 * once, before test files run in parallel workers that would otherwise each generate
 * them at the same time.
 */
export default function prepareVendorDefinitions(): void {
  checkKlaviyoType(klaviyoErrorType, { errors: [] });
  checkOpenAiType('Model', {});
  checkPixelType('PixelEventsProductViewed', {});
  adminSchema(SHOPIFY_API_VERSION);
}
