import { startE2EServer, type E2EServer } from './e2e-server.ts';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../fakes/fake-openai.ts';
import { startFakeKlaviyo, type FakeKlaviyo, type FakeKlaviyoOptions } from '../fakes/fake-klaviyo.ts';
import { startFakeShopify, type FakeShopify } from '../fakes/fake-shopify.ts';
import { shopifyToken } from './engine-scenario.ts';

export interface E2EWithServices {
  server: E2EServer;
  openai: FakeOpenAI;
  klaviyo: FakeKlaviyo;
  shopify: FakeShopify;
  stop(): Promise<void>;
}

export interface E2EServicesOptions {
  openai?: FakeOpenAIOptions;
  klaviyo?: FakeKlaviyoOptions;
  /** Replaces the default (Shopify accepting engine-scenario.ts's access token). */
  shopify?: Parameters<typeof startFakeShopify>[0];
}

/**
 * The real server with fake OpenAI, Klaviyo and Shopify behind its base-URL variables:
 * what every page past setup needs, since saving credentials checks them live.
 */
export async function startE2EServerWithServices(options: E2EServicesOptions = {}): Promise<E2EWithServices> {
  const openai = await startFakeOpenAI(options.openai);
  const klaviyo = await startFakeKlaviyo(options.klaviyo);
  const shopify = await startFakeShopify(options.shopify ?? { accessTokens: [shopifyToken] });
  const server = await startE2EServer({
    env: { OPENAI_BASE_URL: openai.apiBaseUrl, KLAVIYO_BASE_URL: klaviyo.baseUrl, SHOPIFY_BASE_URL: shopify.baseUrl },
  });
  return {
    server,
    openai,
    klaviyo,
    shopify,
    async stop() {
      await server.stop();
      await Promise.all([openai.close(), klaviyo.close(), shopify.close()]);
    },
  };
}
