import { createHash } from 'node:crypto';
import { moderateTexts, type ModerationVerdict } from '../../integrations/openai/openai-moderations.ts';
import type { OpenAiConnection } from '../../integrations/openai/openai-responses.ts';

/**
 * OpenAI's moderation of written texts, many texts to a call: texts asked for within a
 * few milliseconds of each other (the assistants of one event, and the events the
 * process's workers handle at the same time) go in one request per key and endpoint. A
 * verdict is kept a while by the text it judged: a text the generation cache reuses for
 * the next 200 shoppers is judged once. A call that fails fails every text that was in
 * it; each event then waits and tries again (a text never goes out unchecked).
 */
export interface ModerationBatcherOptions {
  /** Texts in one request at most. */
  maxTexts: number;
  /** How long the first text of a batch waits for others. */
  maxWaitMs: number;
  /** Verdicts kept, by text. */
  maxKept: number;
}

interface Waiting {
  text: string;
  resolve: (verdict: ModerationVerdict) => void;
  reject: (error: unknown) => void;
}

interface Batch {
  connection: OpenAiConnection;
  waiting: Waiting[];
  timer: NodeJS.Timeout;
}

export class ModerationBatcher {
  private readonly batches = new Map<string, Batch>();
  private readonly kept = new Map<string, ModerationVerdict>();
  private readonly options: ModerationBatcherOptions;

  constructor(options: ModerationBatcherOptions = { maxTexts: 32, maxWaitMs: 5, maxKept: 10_000 }) {
    this.options = options;
  }

  moderate(connection: OpenAiConnection, text: string): Promise<ModerationVerdict> {
    const keptKey = `${connection.baseUrl}\u0000${createHash('sha256').update(text).digest('base64')}`;
    const known = this.kept.get(keptKey);
    if (known) return Promise.resolve(known);
    // One batch per account: a call is made with one key, and its texts are that owner's.
    const batchKey = `${connection.baseUrl}\u0000${createHash('sha256').update(connection.apiKey).digest('base64')}`;
    return new Promise<ModerationVerdict>((resolve, reject) => {
      const keep = (verdict: ModerationVerdict) => {
        this.remember(keptKey, verdict);
        resolve(verdict);
      };
      let batch = this.batches.get(batchKey);
      if (!batch) {
        batch = { connection, waiting: [], timer: setTimeout(() => this.send(batchKey), this.options.maxWaitMs) };
        this.batches.set(batchKey, batch);
      }
      batch.waiting.push({ text, resolve: keep, reject });
      if (batch.waiting.length >= this.options.maxTexts) this.send(batchKey);
    });
  }

  private send(batchKey: string): void {
    const batch = this.batches.get(batchKey);
    if (!batch) return;
    this.batches.delete(batchKey);
    clearTimeout(batch.timer);
    const texts = [...new Set(batch.waiting.map((waiting) => waiting.text))];
    moderateTexts(batch.connection, texts).then(
      (verdicts) => {
        const byText = new Map(texts.map((text, index) => [text, verdicts[index]!]));
        for (const waiting of batch.waiting) waiting.resolve(byText.get(waiting.text)!);
      },
      (error: unknown) => {
        for (const waiting of batch.waiting) waiting.reject(error);
      },
    );
  }

  private remember(key: string, verdict: ModerationVerdict): void {
    if (this.kept.size >= this.options.maxKept) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, verdict);
  }
}
