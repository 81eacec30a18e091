import { expect, it } from 'vitest';
import { compiledOpenAiChecks } from '../contracts/openai-definition.ts';
import { compiledKlaviyoChecks } from '../contracts/klaviyo-definition.ts';
import { startFakeOpenAI } from '../fakes/fake-openai.ts';
import { startFakeKlaviyo } from '../fakes/fake-klaviyo.ts';

// A stand-in compiles its checks of the vendor's definition as it starts. Compiled on the
// first request instead, they made that request half a second slower here, and on a busy
// run a credential check of a browser test waited past its 8 s limit and was refused.
it('has the checks of OpenAI and Klaviyo compiled before its first request', async () => {
  expect(compiledOpenAiChecks()).toEqual([]);
  expect(compiledKlaviyoChecks()).toEqual([]);
  const [openai, klaviyo] = await Promise.all([startFakeOpenAI(), startFakeKlaviyo()]);
  try {
    expect(compiledOpenAiChecks()).toEqual(expect.arrayContaining(['ResponseCreateParamsNonStreaming', 'Response', 'ErrorBody']));
    expect(compiledKlaviyoChecks()).toEqual(expect.arrayContaining(['GetAccounts4XXResponse']));
    expect(compiledKlaviyoChecks().length).toBeGreaterThan(5);
  } finally {
    await Promise.all([openai.close(), klaviyo.close()]);
  }
});
