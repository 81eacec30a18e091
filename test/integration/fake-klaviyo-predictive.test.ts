import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { klaviyoModelFields, klaviyoOperation } from '../contracts/klaviyo-definition.ts';
import { startFakeKlaviyo, type FakeKlaviyo, type FakePredictiveAnalytics } from '../fakes/fake-klaviyo.ts';

/**
 * The Klaviyo stand-in's predictive analytics (getProfiles and getProfile with
 * `additional-fields[profile]=predictive_analytics`), held to Klaviyo's definition: every
 * answer is checked against the SDK's answer types when the fake closes.
 */
async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

const headers = {
  authorization: 'Klaviyo-API-Key pk_good',
  revision: '2026-07-15',
  accept: 'application/vnd.api+json',
};

const figures: Partial<FakePredictiveAnalytics> = {
  historic_clv: 93.87,
  predicted_clv: 27.24,
  total_clv: 121.11,
  historic_number_of_orders: 2,
  churn_probability: 0.89,
  expected_date_of_next_order: '2026-12-08T00:00:00+00:00',
  ranked_channel_affinity: ['sms', 'email', 'push'],
};

const allNull: FakePredictiveAnalytics = {
  historic_clv: null,
  predicted_clv: null,
  total_clv: null,
  historic_number_of_orders: null,
  predicted_number_of_orders: null,
  average_days_between_orders: null,
  average_order_value: null,
  churn_probability: null,
  expected_date_of_next_order: null,
  ranked_channel_affinity: null,
};

/** The query the app sends (findPredictiveAnalytics). */
const lookup = (email: string) => new URLSearchParams({ filter: `equals(email,"${email}")`, 'additional-fields[profile]': 'predictive_analytics', 'page[size]': '1' });

describe('fake Klaviyo: predictive analytics', () => {
  let klaviyo: FakeKlaviyo;
  let now = 1_000_000;
  beforeAll(async () => {
    klaviyo = await startFakeKlaviyo({ validKeys: ['pk_good'], now: () => now });
  });
  afterAll(() => klaviyo.close());
  afterEach(() => {
    klaviyo.enforceRateLimits = false;
  });

  it('has exactly the fields of the definition’s PredictiveAnalytics', () => {
    expect(Object.keys(allNull)).toEqual(klaviyoModelFields('PredictiveAnalytics'));
    expect(klaviyoOperation('getProfiles').queryValues['additional-fields[profile]']).toEqual({ values: ['subscriptions', 'predictive_analytics'], list: true });
    expect(klaviyoOperation('getProfile').scopes).toEqual(['profiles:read']);
  });

  it('answers a profile’s figures only when asked, on the app’s filtered lookup and by id', async () => {
    const profile = klaviyo.setPredictiveAnalytics('Ana@Example.com', figures);
    expect(klaviyo.profiles.get('Ana@Example.com')?.id).toBe(profile.id);

    const asked = await call(`${klaviyo.baseUrl}/api/profiles?${lookup('ana@example.com')}`, { headers });
    expect(asked.status).toBe(200);
    expect(asked.json.data).toHaveLength(1);
    expect(asked.json.data[0].attributes.predictive_analytics).toEqual({ ...allNull, ...figures });
    expect(asked.json.data[0].attributes).toMatchObject({ email: 'Ana@Example.com', properties: {} });

    const plainQuery = new URLSearchParams({ filter: 'equals(email,"ana@example.com")', 'page[size]': '1' });
    const plain = await call(`${klaviyo.baseUrl}/api/profiles?${plainQuery}`, { headers });
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.json.data[0].attributes)).toEqual(['email', 'first_name', 'last_name', 'properties', 'created', 'updated']);

    const byId = await call(`${klaviyo.baseUrl}/api/profiles/${profile.id}?additional-fields[profile]=predictive_analytics`, { headers });
    expect(byId.status).toBe(200);
    expect(byId.json.data).toMatchObject({ type: 'profile', id: profile.id, attributes: { email: 'Ana@Example.com', predictive_analytics: { ...allNull, ...figures } } });
    const byIdPlain = await call(`${klaviyo.baseUrl}/api/profiles/${profile.id}/`, { headers });
    expect(byIdPlain.status).toBe(200);
    expect(byIdPlain.json.data.attributes).not.toHaveProperty('predictive_analytics');

    const missing = await call(`${klaviyo.baseUrl}/api/profiles/01NOSUCHPROFILE?additional-fields[profile]=predictive_analytics`, { headers });
    expect(missing.status).toBe(404);
    expect(missing.json.errors[0].code).toBe('not_found');
    expect(klaviyo.takeViolations()).toEqual([]);
  });

  it('answers every field null for a profile without figures, and again once its figures are taken away', async () => {
    klaviyo.addProfile('bo@example.com');
    const none = await call(`${klaviyo.baseUrl}/api/profiles?${lookup('bo@example.com')}`, { headers });
    expect(none.json.data[0].attributes.predictive_analytics).toEqual(allNull);

    klaviyo.setPredictiveAnalytics('bo@example.com', { churn_probability: 0.2 });
    expect((await call(`${klaviyo.baseUrl}/api/profiles?${lookup('bo@example.com')}`, { headers })).json.data[0].attributes.predictive_analytics).toEqual({ ...allNull, churn_probability: 0.2 });
    klaviyo.setPredictiveAnalytics('bo@example.com', null);
    expect((await call(`${klaviyo.baseUrl}/api/profiles?${lookup('bo@example.com')}`, { headers })).json.data[0].attributes.predictive_analytics).toEqual(allNull);

    // No profile for the address: an empty page, as without the parameter.
    const nobody = await call(`${klaviyo.baseUrl}/api/profiles?${lookup('nobody@example.com')}`, { headers });
    expect(nobody.json.data).toEqual([]);
  });

  it('refuses a value additional-fields does not take with Klaviyo’s 400, and records it', async () => {
    const unknown = await call(`${klaviyo.baseUrl}/api/profiles?${new URLSearchParams({ filter: 'equals(email,"ana@example.com")', 'additional-fields[profile]': 'predictive_analytics,predictions' })}`, { headers });
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors[0]).toMatchObject({ code: 'invalid', title: 'Invalid input.', source: { parameter: 'additional-fields[profile]' } });
    expect(unknown.json.errors[0].detail).toContain("'predictions'");
    const byId = await call(`${klaviyo.baseUrl}/api/profiles/${klaviyo.profiles.get('Ana@Example.com')!.id}?additional-fields[profile]=`, { headers });
    expect(byId.status).toBe(400);
    expect(klaviyo.takeViolations().map((violation) => violation.problems.join(' '))).toEqual([
      expect.stringContaining("getProfiles: additional-fields[profile]=predictive_analytics,predictions: 'predictions' is not one of the values"),
      expect.stringContaining("getProfile: additional-fields[profile]=: '' is not one of the values"),
    ]);
  });

  it('takes subscriptions too, and narrows additional fields by a sparse fieldset', async () => {
    const both = await call(`${klaviyo.baseUrl}/api/profiles?${new URLSearchParams({ filter: 'equals(email,"ana@example.com")', 'additional-fields[profile]': 'subscriptions,predictive_analytics' })}`, { headers });
    expect(both.status).toBe(200);
    expect(both.json.data[0].attributes.subscriptions.email.marketing).toMatchObject({ consent: 'NEVER_SUBSCRIBED' });
    expect(both.json.data[0].attributes.predictive_analytics.churn_probability).toBe(0.89);

    const narrowed = await call(
      `${klaviyo.baseUrl}/api/profiles?${new URLSearchParams({ ...Object.fromEntries(lookup('ana@example.com')), 'fields[profile]': 'email,predictive_analytics.churn_probability,predictive_analytics.expected_date_of_next_order' })}`,
      { headers },
    );
    expect(narrowed.json.data[0].attributes).toEqual({ email: 'Ana@Example.com', predictive_analytics: { churn_probability: 0.89, expected_date_of_next_order: '2026-12-08T00:00:00+00:00' } });
    const whole = await call(`${klaviyo.baseUrl}/api/profiles?${new URLSearchParams({ ...Object.fromEntries(lookup('ana@example.com')), 'fields[profile]': 'predictive_analytics' })}`, { headers });
    expect(whole.json.data[0].attributes).toEqual({ predictive_analytics: { ...allNull, ...figures } });
    // A fieldset that does not name them leaves the additional fields out (the app's own lookups: email and names).
    const left = await call(`${klaviyo.baseUrl}/api/profiles?${new URLSearchParams({ ...Object.fromEntries(lookup('ana@example.com')), 'fields[profile]': 'email,first_name,last_name' })}`, { headers });
    expect(left.json.data[0].attributes).toEqual({ email: 'Ana@Example.com', first_name: null, last_name: null });
    // A field the definition does not list is refused like an unknown additional field.
    const wrongField = await call(`${klaviyo.baseUrl}/api/profiles?${new URLSearchParams({ ...Object.fromEntries(lookup('ana@example.com')), 'fields[profile]': 'email,clv' })}`, { headers });
    expect(wrongField.status).toBe(400);
    expect(wrongField.json.errors[0].source).toEqual({ parameter: 'fields[profile]' });
    expect(klaviyo.takeViolations()).toHaveLength(1);
  });

  it('refuses figures that are not the definition’s', () => {
    expect(() => klaviyo.setPredictiveAnalytics('cy@example.com', { ranked_channel_affinity: ['fax'] as unknown as FakePredictiveAnalytics['ranked_channel_affinity'] })).toThrow(/ranked_channel_affinity/);
    expect(() => klaviyo.setPredictiveAnalytics('cy@example.com', { churn: 0.5 } as Partial<FakePredictiveAnalytics>)).toThrow(/'churn' is not a field the definition has/);
  });

  it('holds lookups asking for predictive analytics to their own tier of 10 a second', async () => {
    klaviyo.enforceRateLimits = true;
    now += 120_000;
    const statuses: number[] = [];
    for (let index = 0; index < 11; index += 1) statuses.push((await call(`${klaviyo.baseUrl}/api/profiles?${lookup('ana@example.com')}`, { headers })).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    // Lookups without them are counted apart.
    expect((await call(`${klaviyo.baseUrl}/api/profiles?filter=${encodeURIComponent('equals(email,"ana@example.com")')}`, { headers })).status).toBe(200);
    now += 1_001;
    expect((await call(`${klaviyo.baseUrl}/api/profiles?${lookup('ana@example.com')}`, { headers })).status).toBe(200);
  });
});

describe('fake Klaviyo: an account without predictive analytics', () => {
  let klaviyo: FakeKlaviyo;
  beforeAll(async () => {
    klaviyo = await startFakeKlaviyo({ validKeys: ['pk_good'], predictiveAnalytics: false });
  });
  afterAll(() => klaviyo.close());

  it('answers every profile with every field null, whatever its figures', async () => {
    const profile = klaviyo.setPredictiveAnalytics('ana@example.com', figures);
    const listed = await call(`${klaviyo.baseUrl}/api/profiles?${lookup('ana@example.com')}`, { headers });
    expect(listed.status).toBe(200);
    expect(listed.json.data[0].attributes.predictive_analytics).toEqual(allNull);
    const byId = await call(`${klaviyo.baseUrl}/api/profiles/${profile.id}?additional-fields[profile]=predictive_analytics`, { headers });
    expect(byId.json.data.attributes.predictive_analytics).toEqual(allNull);
  });
});
