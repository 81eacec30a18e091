import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';

/**
 * The key and model checks of docs/product/service-contracts.md §2: `GET {base}/models`
 * (200 for a valid key, 401 otherwise; no tokens spent) and `GET {base}/models/{id}`.
 */
const modelSchema = z.looseObject({ id: z.string(), shutdown_date: z.string().nullish() });
const modelListSchema = z.looseObject({ data: z.array(modelSchema) });

function headers(apiKey: string) {
  return { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
}

/** A model the key may use, with the date OpenAI will shut it down, when it says. */
export interface OpenAiModel {
  id: string;
  shutdownDate: string | null;
}

const toModel = (model: z.infer<typeof modelSchema>): OpenAiModel => ({ id: model.id, shutdownDate: model.shutdown_date ?? null });

/** Every model the key may use. */
export async function listOpenAiModels(baseUrl: string, apiKey: string, signal: AbortSignal): Promise<OpenAiModel[]> {
  return callService('openai', { url: `${baseUrl}/models`, headers: headers(apiKey), signal }, async (answer) => {
    if (!answer.ok) throw answer.error();
    const parsed = modelListSchema.safeParse(await answer.json());
    if (!parsed.success) throw new ServiceError('openai', 'invalid_response', 'its list of models could not be read (OpenAI may be having trouble); try again in a minute', { status: answer.status });
    return parsed.data.data.map(toModel);
  });
}

/** The model when the key may use it; null when OpenAI says it does not exist for this key. */
export async function findOpenAiModel(baseUrl: string, apiKey: string, model: string, signal: AbortSignal): Promise<OpenAiModel | null> {
  return callService('openai', { url: `${baseUrl}/models/${encodeURIComponent(model)}`, headers: headers(apiKey), signal }, async (answer) => {
    if (answer.status === 404) return null;
    if (!answer.ok) throw answer.error();
    const parsed = modelSchema.safeParse(await answer.json());
    if (!parsed.success) throw new ServiceError('openai', 'invalid_response', 'its answer about the model could not be read (OpenAI may be having trouble); try again in a minute', { status: answer.status });
    return toModel(parsed.data);
  });
}
