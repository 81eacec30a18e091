import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';
import { openAiErrorOf, type OpenAiConnection } from './openai-responses.ts';

/**
 * OpenAI's moderation endpoint (`POST {base}/moderations`, free of charge): many texts in
 * one call, one result per text in the same order. Used to check written texts before a
 * shopper sees them; a text is flagged when any category is.
 */
export const MODERATION_MODEL = 'omni-moderation-latest';

export interface ModerationVerdict {
  flagged: boolean;
  /** The categories that flagged it ("harassment", "violence/graphic", …), for the event log. */
  categories: string[];
}

const answerSchema = z.looseObject({
  results: z.array(z.looseObject({ flagged: z.boolean(), categories: z.record(z.string(), z.boolean().nullable()) })),
});

export async function moderateTexts(connection: OpenAiConnection, texts: string[], signal?: AbortSignal): Promise<ModerationVerdict[]> {
  if (texts.length === 0) return [];
  const call = {
    url: `${connection.baseUrl}/moderations`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${connection.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ model: MODERATION_MODEL, input: texts }),
    timeoutMs: connection.timeoutMs,
    signal,
    now: connection.now,
  };
  return callService('openai', call, async (answer) => {
    if (!answer.ok) throw openAiErrorOf(answer, await answer.text(), connection.apiKey);
    const parsed = answerSchema.safeParse(await answer.json({ message: 'the answer was not JSON' }));
    // One result per text, or none can be trusted to belong to its text.
    if (!parsed.success || parsed.data.results.length !== texts.length) {
      throw new ServiceError('openai', 'invalid_response', 'the answer did not have one moderation result per text', { kind: 'permanent', status: answer.status });
    }
    return parsed.data.results.map((result) => ({
      flagged: result.flagged,
      categories: Object.entries(result.categories)
        .filter(([, flagged]) => flagged === true)
        .map(([name]) => name),
    }));
  });
}
