import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productTitleSearch, searchShopifyProductTitles } from '../../src/server/integrations/shopify/shopify-product-search.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';
import { startFakeShopify, type FakeShopify, type FakeShopifyProduct } from '../fakes/fake-shopify.ts';

const product = (title: string): FakeShopifyProduct => ({ title, description: '', onlineStoreUrl: null, featuredImage: null });

let shopify: FakeShopify;
beforeAll(async () => {
  shopify = await startFakeShopify({
    products: {
      '1': product('Alpine Trail Jacket – Blue'),
      '2': product('Stoneware Mug Blue Edition'),
      '3': product("D'Addario EXL110 Strings"),
      '4': product('Reading Lamp'),
      '5': product('Alpine Trail Jackets Gift Set'),
    },
  });
});
// The fake holds every request and answer to Shopify's 2026-10 schema: closing fails on any breach.
afterAll(() => shopify?.close());

const connection = () => ({ shopUrl: shopify.baseUrl, accessToken: 'shpat_test_valid' });
// A limit only against a hang: these tests are not about time, and the stand-in's first
// answer (its check against Shopify's schema, built on first use) took over 2 s on a busy run.
const noHang = () => AbortSignal.timeout(30_000);
const search = (phrase: string) => searchShopifyProductTitles(connection(), phrase, noHang());
const lastSearchSent = () => (shopify.requests.at(-1)!.body as { variables: { query: string } }).variables.query;

describe("the shop's catalogue searched by title", () => {
  it('finds products whose titles hold the words of a phrase, in any case, order or number', async () => {
    expect(await search('the Alpine Jackets')).toEqual(['Alpine Trail Jacket – Blue', 'Alpine Trail Jackets Gift Set']);
    expect(lastSearchSent()).toBe('title:alpine* title:jacket*');
    expect(await search('READING LAMP')).toEqual(['Reading Lamp']);
  });

  it("escapes what Shopify's search syntax would read, so a phrase is only ever words of titles", async () => {
    expect(await search('Mug:Blue')).toEqual(['Stoneware Mug Blue Edition']);
    expect(lastSearchSent()).toBe(String.raw`title:mug\:blue*`);
    expect(await search('“D\'Addario” Strings')).toEqual(["D'Addario EXL110 Strings"]);
    expect(lastSearchSent()).toBe(String.raw`title:d\'addario* title:string*`);
    // Neither an OR nor another field nor a bare wildcard widens the search.
    expect(await search('Lamp) OR (vendor:* "x\\y"')).toEqual([]);
    expect(lastSearchSent()).toBe(String.raw`title:lamp* title:vendor* title:x\\y*`);
  });

  it('finds nothing for a product the shop does not sell, and asks nothing for a phrase without words', async () => {
    expect(await search('Nordic Saucer Set')).toEqual([]);
    const before = shopify.requests.length;
    expect(await search(' “ & ” ')).toEqual([]);
    expect(shopify.requests.length).toBe(before);
    expect(productTitleSearch('of the')).toBeNull();
  });

  it('fails as every Shopify call does when the token is refused', async () => {
    const refused = await searchShopifyProductTitles({ ...connection(), accessToken: 'shpat_unknown' }, 'Reading Lamp', noHang()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).retryable).toBe(false);
  });
});

describe('the Shopify stand-in answering a product search', () => {
  const graphql = async (query: string) => {
    const answer = await fetch(`${shopify.baseUrl}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'x-shopify-access-token': 'shpat_test_valid', 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await answer.json()) as { data?: { products: { nodes: Array<{ title: string }> } }; errors?: Array<{ message: string }> };
  };

  it('matches a quoted title phrase word after word, and a bare word whole unless it ends in *', async () => {
    const titles = async (search: string) => (await graphql(`{ products(first: 5, query: ${JSON.stringify(search)}) { nodes { title } } }`)).data!.products.nodes.map((node) => node.title);
    expect(await titles('title:"trail jacket"')).toEqual(['Alpine Trail Jacket – Blue']);
    expect(await titles("title:'jacket trail'")).toEqual([]);
    expect(await titles('title:jacket')).toEqual(['Alpine Trail Jacket – Blue']);
    expect(await titles('title:jacket*')).toEqual(['Alpine Trail Jacket – Blue', 'Alpine Trail Jackets Gift Set']);
    expect(await titles('title:alpine AND title:gift')).toEqual(['Alpine Trail Jackets Gift Set']);
    expect(await titles('title:alpine*')).toHaveLength(2);
  });

  it('says so instead of answering search syntax it does not know', async () => {
    const answer = await graphql('{ products(first: 5, query: "vendor:Acme OR title:lamp") { nodes { title } } }');
    expect(answer.errors?.[0]?.message).toContain('title:');
    expect(answer.data).toBeUndefined();
  });
});
