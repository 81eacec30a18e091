import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';

/**
 * The key and model checks of INTEGRATIONS.md: `GET {base}/models` (200 for a valid
 * key, 401 otherwise; no tokens spent) and `GET {base}/models/{id}`.
 */
const modelSchema = z.looseObject({ id: z.string() });
const modelListSchema = z.looseObject({ data: z.array(modelSchema) });

function headers(apiKey: string) {
  return { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
}

/** Every model id the key may use. */
export async function listOpenAiModels(baseUrl: string, apiKey: string, signal: AbortSignal): Promise<string[]> {
  return callService('openai', { url: `${baseUrl}/models`, headers: headers(apiKey), signal }, async (answer) => {
    if (!answer.ok) throw answer.error();
    const parsed = modelListSchema.safeParse(await answer.json());
    if (!parsed.success) throw new ServiceError('openai', 'invalid_response', 'its list of models could not be read (OpenAI may be having trouble); try again in a minute', { status: answer.status });
    return parsed.data.data.map((model) => model.id);
  });
}

/** True when the key may use `model`, false when OpenAI says it does not exist for this key. */
export async function openAiModelExists(baseUrl: string, apiKey: string, model: string, signal: AbortSignal): Promise<boolean> {
  return callService('openai', { url: `${baseUrl}/models/${encodeURIComponent(model)}`, headers: headers(apiKey), signal }, async (answer) => {
    if (answer.status === 404) return false;
    if (!answer.ok) throw answer.error();
    const parsed = modelSchema.safeParse(await answer.json());
    if (!parsed.success) throw new ServiceError('openai', 'invalid_response', 'its answer about the model could not be read (OpenAI may be having trouble); try again in a minute', { status: answer.status });
    return true;
  });
}

// Embedding, audio, image and moderation models cannot write marketing text.
const textModel = /^(gpt-|chatgpt-|o\d)/;
const notTextModel = /(audio|realtime|tts|transcribe|image|embedding|search|moderation|instruct)/;

/** The models worth offering for writing text, sorted. */
export function textGenerationModels(models: string[]): string[] {
  return [...new Set(models.filter((id) => textModel.test(id) && !notTextModel.test(id)))].sort();
}
