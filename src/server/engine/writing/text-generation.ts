import { createHash, randomUUID } from 'node:crypto';
import type { FlowRecord } from '../../flows/flow-queries.ts';
import type { EventRecord } from '../../events/event-queries.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import type { Assistant } from '../../../shared/flows/flow-schemas.ts';
import { createResponse, OpenAiBilledFailure, type ResponsesRequest, type ResponsesResult } from '../../integrations/openai/openai-responses.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import { composeGroupInput, composeGroupInstructions, composeInstructions, fieldName, namesShopper, renderPrompt } from './prompt-rendering.ts';
import { findCachedGenerations, findReusableGeneration, listGenerations, saveGenerationChecks, saveGenerations, type GenerationRecord } from '../../generations/generation-queries.ts';
import { judgeTexts, settleJudgement } from '../checking/text-checking.ts';
import { withLanguage } from './prompt-rendering.ts';
import { expectedLanguage, languageName } from '../../text-checks/text-language.ts';
import type { TextChecksRecord } from '../../../shared/text-checks/text-check-schemas.ts';
import { textCheckOutcomeMessages } from '../../../shared/text-checks/text-check-messages.ts';
import { recordFlowSpend } from '../../generations/flow-spend-queries.ts';
import { callCost, priceOf } from '../../integrations/openai/openai-prices.ts';
import { withQuickRetry } from '../spine/quick-retry.ts';
import type { EngineCredentials } from '../spine/engine-credentials.ts';
import { quickRetries, type PipelineContext } from '../spine/pipeline-context.ts';
import { allGoingOn, ended, goOn, type Ended, type StepResult } from '../spine/step-result.ts';
import { decideAfterChecks, decideAnswerText, decideServiceTier, failedTextReason, fallsBackFromFlex, planAssistantText, settleGenerations } from '../spine/pipeline-core.ts';

/**
 * The texts of all a flow's assistants for one event, at the least cost
 * (docs/decisions/0021-one-call-per-model.md):
 * - a text already stored for this attempt is kept; a replay reuses an earlier attempt's
 *   text for the same request;
 * - a prompt that names nothing of the shopper reuses the text an identical request got
 *   within the flow's window (the generation cache), and identical requests in flight in
 *   this process share one call;
 * - the rest are written by one OpenAI call per model, with Structured Outputs (one field
 *   per assistant) when several assistants share it; the fixed part of the prompt comes
 *   first and `prompt_cache_key` names the flow, so OpenAI's prompt cache serves it;
 * - flows that wait 15 minutes or more use the flex tier when the owner allows it, and the
 *   standard tier when flex is refused or too slow.
 * Each assistant's outcome is still its own row, with its own prompt and text. A text that
 * failed for good, a key OpenAI refuses, or checks that leave a text unsent end the event.
 */
export async function generateTexts(context: PipelineContext, writing: Writing): Promise<StepResult<GenerationRecord[]>> {
  const { event, signal } = writing;
  const stored = new Map((await listGenerations(context.pool, event.id, event.attempt)).map((generation) => [generation.klaviyoProperty, generation]));
  const { done, toWrite } = await settleWithoutCalls(context, writing, stored);
  const byModel = new Map<string, Pending[]>();
  for (const pending of toWrite) byModel.set(pending.request.model, [...(byModel.get(pending.request.model) ?? []), pending]);
  const outcomes = await Promise.allSettled([...byModel.values()].map((group) => writeGroupSharingCalls(context, writing, group)));
  if (signal.aborted) throw signal.reason;
  const settled = settleGenerations<GenerationRecord, Ended>([
    ...done.map((generation) => ({ ok: true as const, generations: [generation] })),
    ...outcomes.map((outcome) =>
      outcome.status === 'fulfilled'
        ? outcome.value.kind === 'ended'
          ? { ok: false as const, ended: outcome.value }
          : { ok: true as const, generations: outcome.value.value }
        : // A text that failed for now is tried again later; the texts that arrived are kept.
          { ok: false as const, error: outcome.reason as unknown, retryable: outcome.reason instanceof ServiceError && outcome.reason.retryable },
    ),
  ]);
  if (settled.kind === 'ended') return settled.ended;
  if (settled.kind === 'fail') return ended('failed', settled.reason);
  if (settled.kind === 'try_again' || settled.kind === 'unexpected') throw settled.error;
  return checkTexts(context, writing, settled.generations);
}

/** The texts of one event being written: what each step of writing and checking them is given, besides the context. */
export interface Writing {
  event: EventRecord;
  flow: FlowRecord;
  /** The event as the prompts read it: its products described, the shopper's context added. */
  described: NormalizedEvent;
  credentials: EngineCredentials;
  signal: AbortSignal;
}

/**
 * The checks before delivery (docs/decisions/0040-texts-checked-before-delivery.md): each
 * text not yet checked is judged; one that fails is written again once, with its failures
 * named in the request, and the second text judged; one that fails again becomes the
 * assistant's fallback text, or nothing, as the flow says. Each step is stored before the
 * next, so a job that stops part way resumes there. A flow that sends nothing for a text
 * skips the event (pipeline-core's decideAfterChecks says why).
 */
async function checkTexts(context: PipelineContext, writing: Writing, generations: GenerationRecord[]): Promise<StepResult<GenerationRecord[]>> {
  const { flow } = writing;
  const current = new Map(generations.map((generation) => [generation.klaviyoProperty, generation]));
  const assistantOf = (generation: GenerationRecord) => assistantWriting(flow, generation);
  for (let round = 0; round < 2; round += 1) {
    const toJudge = [...current.values()].filter(
      (generation) => generation.status === 'succeeded' && assistantOf(generation) && (generation.checks === null || generation.checks.stage === 'recheck'),
    );
    const judged = await judgeAndSettle(context, writing, toJudge);
    // A reused text is stored here for the first time, with its checks; a stored one is updated.
    await saveGenerations(
      context.pool,
      judged.filter((_, index) => unsaved.has(toJudge[index]!)),
      context.clock.now(),
    );
    await saveGenerationChecks(
      context.pool,
      judged.filter((_, index) => !unsaved.has(toJudge[index]!)),
    );
    for (const generation of judged) current.set(generation.klaviyoProperty, generation);
    if (round === 1) break;

    const toRewrite = [...current.values()].filter((generation) => generation.status === 'succeeded' && generation.checks?.stage === 'rewrite' && assistantOf(generation));
    if (toRewrite.length === 0) break;
    const byModel = new Map<string, Pending[]>();
    for (const generation of toRewrite) {
      const checks = generation.checks!;
      const refused = checks.rejected.at(-1)!;
      const pending: Pending = {
        assistant: assistantOf(generation)!,
        request: pick(generation),
        reuseKey: generation.reuseKey,
        input: `${generation.prompt}\n\n${textCheckOutcomeMessages.rewriteRequest(refused.text, refused.failures.map((failure) => failure.reason))}`,
        checks: { ...checks, stage: 'recheck' },
      };
      byModel.set(pending.request.model, [...(byModel.get(pending.request.model) ?? []), pending]);
    }
    const rewritten = await allGoingOn([...byModel.values()].map((group) => writeGroup(context, writing, group)));
    if (rewritten.kind === 'ended') return rewritten;
    for (const generation of rewritten.value.flat()) current.set(generation.klaviyoProperty, generation);
  }
  const all = [...current.values()];
  const failures = all.filter((generation) => generation.status === 'failed').map((generation) => generation.error ?? '');
  if (failures.length > 0) return ended('failed', failures.join(' '));
  const afterChecks = decideAfterChecks(all.map((generation) => ({ assistantName: generation.assistantName, withheld: generation.checks?.delivered === 'nothing' })));
  if (afterChecks.kind === 'skip') return ended('skipped', afterChecks.reason, { reason: 'checks', detail: '' });
  return goOn(all);
}

/**
 * The texts judged and what the flow makes of each (settleChecks), without storing:
 * the caller stores them with the checks in the statement it makes anyway.
 */
async function judgeAndSettle(context: PipelineContext, writing: Writing, generations: GenerationRecord[]): Promise<GenerationRecord[]> {
  const { event, flow, described, credentials, signal } = writing;
  const assistantOf = (generation: GenerationRecord) => assistantWriting(flow, generation)!;
  const judgements = await judgeTexts(
    context,
    { event, flow, toWrite: described, credentials, signal },
    generations.map((generation) => ({ assistant: assistantOf(generation), text: generation.text!, endedAtOutputLimit: endedAtOutputLimit.has(generation) })),
  );
  return generations.map((generation, index) => settleJudgement(generation, judgements[index]!, { rules: flow.textRules, assistant: assistantOf(generation), described }));
}

/** The flow's assistant that writes the generation's property; none once the owner removed it. */
function assistantWriting(flow: FlowRecord, generation: GenerationRecord): FlowRecord['assistants'][number] | undefined {
  return flow.assistants.find((assistant) => assistant.klaviyo_property === generation.klaviyoProperty);
}

/** Texts not stored yet: reused ones, stored once judged (a reused text costs nothing to lose). */
const unsaved = new WeakSet<GenerationRecord>();

function pick(generation: GenerationRecord): GenerationRequest {
  const { eventId, attempt, klaviyoProperty, assistantName, model, instructions, prompt } = generation;
  return { eventId, attempt, klaviyoProperty, assistantName, model, instructions, prompt };
}

/** Texts that OpenAI stopped at the output limit, known in the job that wrote them (the row does not keep it). */
const endedAtOutputLimit = new WeakSet<GenerationRecord>();

type GenerationRequest = Pick<GenerationRecord, 'eventId' | 'attempt' | 'klaviyoProperty' | 'assistantName' | 'model' | 'instructions' | 'prompt'>;

/** An assistant whose text needs a call. */
interface Pending {
  assistant: Assistant;
  request: GenerationRequest;
  reuseKey: string | null;
  /** What OpenAI is asked when it is not the row's prompt: the prompt and why its first text was refused. */
  input?: string;
  /** The checks the written text starts with: a rewrite's are the first text's. */
  checks?: TextChecksRecord;
}

const noCall = {
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  durationMs: 0,
  cachedInputTokens: 0,
  serviceTier: null,
  costUsd: 0,
  costEstimated: false,
  openaiCallId: null,
  reused: false,
  reusedFrom: null,
  checks: null,
} satisfies Partial<GenerationRecord>;

/**
 * The key of the generation cache: one flow, one model, one set of instructions, one
 * prompt, and one writer: a sandbox text (the sample writer's above all) is never reused
 * for a real event, nor a real one in the sandbox.
 */
function reuseKeyOf(flowId: string, request: GenerationRequest, credentials: EngineCredentials): string {
  const writer = credentials.sandbox ? `sandbox:${credentials.sandbox.writer}` : null;
  const parts = writer ? [flowId, request.model, request.instructions, request.prompt, writer] : [flowId, request.model, request.instructions, request.prompt];
  // 128 bits of the hash in 22 characters: as safe from collisions as a cache key needs,
  // and a third of the 64 hexadecimal digits stored with every text and in its index
  // (docs/decisions/0057-compact-stored-checks.md). Keys of the longer form stored before
  // simply match nothing, so those texts are written again rather than reused.
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

/**
 * What each assistant's text is without a call (kept, reused, or an empty template), and
 * what the calls must ask. The generation cache is asked once for all of them, and the
 * texts settled here are saved in one statement: under a backlog a worker's time goes
 * mostly to round trips, and three assistants took six of them here.
 */
async function settleWithoutCalls(context: PipelineContext, writing: Writing, stored: Map<string, GenerationRecord>): Promise<{ done: GenerationRecord[]; toWrite: Pending[] }> {
  const { event, flow, described, credentials } = writing;
  const now = context.clock.now();
  const done: GenerationRecord[] = [];
  const toSave: GenerationRecord[] = [];
  const candidates: Pending[] = [];
  const language = expectedLanguage(flow.textRules, described);
  for (const assistant of flow.assistants) {
    const rendered = renderPrompt(assistant.prompt_template, described);
    const { missing } = rendered;
    const prompt = withLanguage(rendered.prompt, language && languageName(language));
    const request: GenerationRequest = {
      eventId: event.id,
      attempt: event.attempt,
      klaviyoProperty: assistant.klaviyo_property,
      assistantName: assistant.name,
      model: assistant.model ?? credentials.openaiModel,
      instructions: assistant.instructions,
      prompt,
    };
    const kept = stored.get(assistant.klaviyo_property);
    const plan = planAssistantText({
      attempt: event.attempt,
      assistantName: assistant.name,
      request,
      missing,
      stored: kept,
      reuseWindowHours: flow.reuseWindowHours,
      promptNamesShopper: namesShopper(assistant.prompt_template),
    });
    if (plan.kind === 'keep') {
      done.push(kept!);
      continue;
    }
    if (plan.kind === 'template_empty') {
      const failed: GenerationRecord = { ...request, ...noCall, reuseKey: null, status: 'failed', text: null, error: plan.reason };
      toSave.push(failed);
      done.push(failed);
      continue;
    }
    const reuseKey = plan.cacheable ? reuseKeyOf(flow.id, request, credentials) : null;
    const earlier = plan.earlierAttempt ? await findReusableGeneration(context.pool, request) : null;
    if (earlier) {
      done.push(reusedText(request, reuseKey, earlier.text!, 'earlier_attempt'));
      continue;
    }
    candidates.push({ assistant, request, reuseKey });
  }
  const keys = candidates.flatMap((pending) => (pending.reuseKey ? [pending.reuseKey] : []));
  const cached = await findCachedGenerations(context.pool, keys, new Date(now.getTime() - flow.reuseWindowHours * 3_600_000));
  const toWrite: Pending[] = [];
  for (const pending of candidates) {
    const hit = pending.reuseKey ? cached.get(pending.reuseKey) : undefined;
    if (!hit) {
      toWrite.push(pending);
      continue;
    }
    done.push(reusedText(pending.request, pending.reuseKey, hit.text!, 'identical_request'));
  }
  await saveGenerations(context.pool, toSave, now);
  return { done, toWrite };
}

function reusedText(request: GenerationRequest, reuseKey: string | null, text: string, from: 'earlier_attempt' | 'identical_request'): GenerationRecord {
  const reused: GenerationRecord = { ...request, ...noCall, reuseKey, status: 'succeeded', text, reused: true, reusedFrom: from, error: null };
  unsaved.add(reused);
  return reused;
}

/**
 * Calls in flight in this process for requests that name no shopper, by their reuse
 * keys: an identical request arriving meanwhile (200 shoppers viewing one product in the
 * same minute) waits for that call's texts instead of paying for its own.
 */
const sharedCalls = new Map<string, Promise<Map<string, string> | null>>();

async function writeGroupSharingCalls(context: PipelineContext, writing: Writing, group: Pending[]): Promise<StepResult<GenerationRecord[]>> {
  const shareable = group.every((pending) => pending.reuseKey !== null);
  if (!shareable) return writeGroup(context, writing, group);
  const key = group.map((pending) => pending.reuseKey).join(':');
  const running = sharedCalls.get(key);
  if (running) {
    const texts = await running.catch(() => null);
    if (texts && group.every((pending) => texts.has(pending.reuseKey!))) {
      // Judged against this event's own facts, and stored with the checks, in checkTexts.
      return goOn(group.map((pending) => reusedText(pending.request, pending.reuseKey, texts.get(pending.reuseKey!)!, 'identical_request')));
    }
    // The shared call failed (or ended its event): this event tries on its own.
    return writeGroup(context, writing, group);
  }
  const call = writeGroup(context, writing, group);
  // Only texts that passed as written are handed on: another event's refusal is its own.
  const texts = call.then((written) =>
    written.kind === 'ended'
      ? null
      : new Map(
          written.value.flatMap((generation) =>
            generation.status === 'succeeded' && generation.reuseKey && generation.checks?.delivered === 'written' ? [[generation.reuseKey, generation.text!]] : [],
          ),
        ),
  );
  // A failed call is this event's to handle; those waiting on it then try on their own.
  texts.catch(() => undefined);
  sharedCalls.set(key, texts);
  try {
    return await call;
  } finally {
    sharedCalls.delete(key);
  }
}

/**
 * What one OpenAI call for assistants that share a model is asked: the assistants'
 * instructions and tasks, one answer field each when there are several.
 */
export function groupRequest(context: PipelineContext, flow: Pick<FlowRecord, 'id'>, group: ReadonlyArray<{ assistant: Assistant; model: string; instructions: string | null; input: string }>): ResponsesRequest {
  const combined = group.length > 1;
  return {
    model: group[0]!.model,
    instructions: combined ? composeGroupInstructions(group.map((item) => item.assistant)) : composeInstructions(group[0]!.instructions),
    input: combined ? composeGroupInput(group.map((item) => item.input)) : group[0]!.input,
    maxOutputTokens: context.options.maxOutputTokens * group.length,
    promptCacheKey: `flow-${createHash('sha256').update(flow.id).digest('hex').slice(0, 24)}`,
    ...(combined ? { jsonSchema: answerSchema(group.length) } : {}),
  };
}

/** One assistant's text from a call's answer (several assistants: its field of the JSON). */
export function answerTexts(answer: ResponsesResult, fields: number): Array<{ text: string | null; reason: string }> {
  return fields > 1 ? fieldTexts(answer, fields) : [{ text: answer.text, reason: answer.noTextReason ?? '' }];
}

/**
 * One OpenAI call for assistants that share a model; each gets its own row, stored with
 * its checks (judged as the answer arrives, so a text costs one statement, not two). A key
 * OpenAI refuses ends the event.
 */
async function writeGroup(context: PipelineContext, writing: Writing, group: Pending[]): Promise<StepResult<GenerationRecord[]>> {
  const { event, flow, credentials, signal } = writing;
  const model = group[0]!.request.model;
  const request = groupRequest(
    context,
    flow,
    group.map((pending) => ({ assistant: pending.assistant, model, instructions: pending.request.instructions, input: pending.input ?? pending.request.prompt })),
  );
  // A duration, so the monotonic timer rather than the app's clock (which a test holds still).
  const started = performance.now();
  const callId = randomUUID();
  let answer: ResponsesResult;
  try {
    answer = await callOpenAi(context, writing, request);
  } catch (error) {
    if (!(error instanceof ServiceError) || signal.aborted) throw error;
    const durationMs = Math.round(performance.now() - started);
    const failed = group.map(
      (pending): GenerationRecord => ({
        ...pending.request,
        ...noCall,
        durationMs,
        reuseKey: pending.reuseKey,
        status: 'failed',
        text: null,
        error: failedTextReason({ assistantName: pending.assistant.name, model, failure: error }),
        checks: pending.checks ?? null,
      }),
    );
    // Recorded for the owner to see; a retryable failure then goes up to be tried again later.
    await saveGenerations(context.pool, failed, context.clock.now());
    context.observer?.generation({ succeeded: false, durationMs, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 });
    if (!credentials.sandbox) await tellOpenAiCondition(context, event.userId, model, error);
    if (error.retryable) throw error;
    // A key OpenAI refuses is the owner's to replace: the event fails saying so, and the owner is told.
    if (error.code === 'unauthorized' || error.code === 'forbidden') {
      return ended('failed', failed.map((generation) => generation.error).join(' '), { reason: 'key_refused', detail: 'OpenAI' });
    }
    return goOn(failed);
  }
  const durationMs = Math.round(performance.now() - started);
  if (!credentials.sandbox) await answeredByOpenAi(context, event.userId, model);
  const texts = answerTexts(answer, group.length);
  const { costUsd, estimated } = callCost(model, answer.usage, answer.serviceTier);
  const shares = splitUsage(answer.usage, costUsd, texts.map((field) => field.text?.length ?? 0));
  const generations = group.map((pending, index): GenerationRecord => {
    const written = decideAnswerText({ assistantName: pending.assistant.name, text: texts[index]!.text, incomplete: answer.incomplete, noTextReason: texts[index]!.reason });
    return {
      ...pending.request,
      ...shares[index]!,
      costEstimated: estimated,
      durationMs,
      serviceTier: answer.serviceTier,
      openaiCallId: callId,
      reuseKey: pending.reuseKey,
      reused: false,
      reusedFrom: null,
      status: written.status,
      text: texts[index]!.text,
      error: written.error,
      checks: pending.checks ?? null,
    };
  });
  if (answer.incomplete) for (const generation of generations) endedAtOutputLimit.add(generation);
  // Stored as soon as they are judged (a few milliseconds), before any delivery: a crash
  // from then on never pays for these texts again. Checks that cannot run now leave the
  // texts stored unchecked, for the event's next try to judge.
  const written = generations.filter((generation) => generation.status === 'succeeded');
  let judged: GenerationRecord[];
  try {
    judged = await judgeAndSettle(context, writing, written);
  } catch (error) {
    await saveGenerations(context.pool, generations, context.clock.now());
    throw error;
  }
  const byProperty = new Map(judged.map((generation) => [generation.klaviyoProperty, generation]));
  const stored = generations.map((generation) => byProperty.get(generation.klaviyoProperty) ?? generation);
  await saveGenerations(context.pool, stored, context.clock.now());
  context.observer?.generation({
    succeeded: generations.every((generation) => generation.status === 'succeeded'),
    durationMs,
    inputTokens: answer.usage.inputTokens,
    cachedInputTokens: answer.usage.cachedInputTokens,
    outputTokens: answer.usage.outputTokens,
  });
  context.logger.info({ eventId: event.id, model, assistants: group.length, serviceTier: answer.serviceTier, durationMs }, 'text generated');
  return goOn(stored);
}

/**
 * An exhausted quota or a model OpenAI no longer serves fails every later text of the
 * owner's (or of that model's) until they act: the dashboard says so once, with the fix
 * (docs/decisions/0047-service-conditions.md).
 */
async function tellOpenAiCondition(context: PipelineContext, userId: string, model: string, error: ServiceError): Promise<void> {
  if (error.code === 'insufficient_quota') await context.conditions?.raise({ userId, kind: 'openai_quota', detail: error.message });
  else if (error.code === 'not_found') await context.conditions?.raise({ userId, kind: 'openai_model_unavailable', subject: model, detail: error.message });
}

/** OpenAI answered: the account has quota and the model is served. */
async function answeredByOpenAi(context: PipelineContext, userId: string, model: string): Promise<void> {
  if (!context.conditions) return;
  await context.conditions.answered(userId, 'openai_quota');
  await context.conditions.answered(userId, 'openai_model_unavailable', model);
}

/** Structured Outputs: one required string per assistant, nothing else. */
function answerSchema(fields: number): { name: string; schema: Record<string, unknown> } {
  const names = Array.from({ length: fields }, (_, index) => fieldName(index));
  return {
    name: 'assistant_texts',
    schema: { type: 'object', properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])), required: names, additionalProperties: false },
  };
}

/** Each field's text from a combined answer; an answer that is not the schema's JSON leaves every field without text, with the reason. */
function fieldTexts(answer: ResponsesResult, fields: number): Array<{ text: string | null; reason: string }> {
  if (!answer.text) return Array.from({ length: fields }, () => ({ text: null, reason: answer.noTextReason ?? '' }));
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    parsed = null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return Array.from({ length: fields }, () => ({ text: null, reason: 'the answer was not the JSON object asked for' }));
  }
  return Array.from({ length: fields }, (_, index) => {
    const value = (parsed as Record<string, unknown>)[fieldName(index)];
    const text = typeof value === 'string' ? value.trim() : '';
    return text ? { text, reason: '' } : { text: null, reason: 'its field was empty' };
  });
}

/**
 * A call's tokens and cost shared among its rows, so that sums over rows are the call's
 * totals: input (and cached input) evenly, output by the length of each text.
 */
function splitUsage(usage: ResponsesResult['usage'], costUsd: number, textLengths: number[]) {
  const count = textLengths.length;
  const even = (total: number, index: number) => Math.floor(total / count) + (index < total % count ? 1 : 0);
  const written = textLengths.reduce((sum, length) => sum + length, 0);
  let outputLeft = usage.outputTokens;
  return textLengths.map((length, index) => {
    const outputTokens = index === count - 1 ? outputLeft : written > 0 ? Math.round((usage.outputTokens * length) / written) : even(usage.outputTokens, index);
    outputLeft -= outputTokens;
    const inputTokens = even(usage.inputTokens, index);
    return {
      inputTokens,
      cachedInputTokens: even(usage.cachedInputTokens, index),
      outputTokens,
      totalTokens: inputTokens + outputTokens,
      costUsd: costUsd / count,
    };
  });
}

/** An OpenAI call's cost and tokens, added to the flow's spend of the day (what its budget counts). */
async function recordCallSpend(context: PipelineContext, flowId: string, cost: { costUsd: number; estimated: boolean }, answer: Pick<ResponsesResult, 'usage'>): Promise<void> {
  await recordFlowSpend(context.pool, {
    flowId,
    at: context.clock.now(),
    ...cost,
    inputTokens: answer.usage.inputTokens,
    cachedInputTokens: answer.usage.cachedInputTokens,
    outputTokens: answer.usage.outputTokens,
  });
}

/**
 * The flex tier for flows that wait 15 minutes or more (when the owner allows it and the
 * model offers it): a text that arrives a few minutes later costs about half. Refused
 * (429 resource_unavailable) or not answered within the flex time limit, the request goes
 * to the standard tier at once, with the usual quick retries.
 */
export async function callOpenAi(context: PipelineContext, caller: OpenAiCaller, request: ResponsesRequest): Promise<ResponsesResult> {
  const { event, flow, credentials, signal } = caller;
  const connection = { baseUrl: credentials.sandbox?.openaiBaseUrl ?? context.openaiBaseUrl, apiKey: credentials.openaiApiKey, timeoutMs: context.options.openaiTimeoutMs, now: () => context.clock.now() };
  const tier = decideServiceTier({
    sandbox: credentials.sandbox !== undefined,
    useFlexTier: flow.useFlexTier,
    waitMinutes: flow.waitMinutes,
    modelOffersFlex: Boolean(priceOf(request.model).flex),
    flexMinWaitMinutes: FLEX_MIN_WAIT_MINUTES,
  });
  // Each try holds a writing slot only while OpenAI writes, not while it waits to try again.
  // Every answer that reports tokens is counted in the flow's spend as it arrives, a failed
  // one included (OpenAI bills it), so a budget stops where the bill does.
  const write = async (call: () => Promise<ResponsesResult>) => {
    try {
      const answer = await (context.writingSlots ? context.writingSlots.run(signal, call) : call());
      await recordCallSpend(context, flow.id, callCost(request.model, answer.usage, answer.serviceTier), answer);
      return answer;
    } catch (error) {
      if (error instanceof OpenAiBilledFailure) await recordCallSpend(context, flow.id, callCost(request.model, error.usage, error.serviceTier), error);
      throw error;
    }
  };
  if (tier === 'flex') {
    try {
      return await write(() => createResponse({ ...connection, timeoutMs: context.options.flexTimeoutMs }, { ...request, serviceTier: 'flex' }, signal));
    } catch (error) {
      if (!(error instanceof ServiceError) || signal.aborted || !fallsBackFromFlex(error.code)) throw error;
      context.logger.info({ eventId: event.id, code: error.code }, 'flex tier unavailable; using the standard tier');
    }
  }
  return withQuickRetry(() => write(() => createResponse(connection, request, signal)), context.options.retry, quickRetries(context, event, 'OpenAI', signal));
}

/** Whom an OpenAI call writes for: the event (for the log), the flow (its tier, its spend), and the credentials and signal of the call. */
export interface OpenAiCaller {
  event: Pick<EventRecord, 'id'>;
  flow: Pick<FlowRecord, 'id' | 'useFlexTier' | 'waitMinutes'>;
  credentials: EngineCredentials;
  signal: AbortSignal;
}

/** Flows that wait at least this long can afford the flex tier's slower answers. */
export const FLEX_MIN_WAIT_MINUTES = 15;
