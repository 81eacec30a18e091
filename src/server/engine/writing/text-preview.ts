import { randomUUID } from 'node:crypto';
import type { FlowRecord } from '../../flows/flow-queries.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import type { Assistant } from '../../../shared/flows/flow-schemas.ts';
import type { TextChecksRecord } from '../../../shared/text-checks/text-check-schemas.ts';
import { textCheckOutcomeMessages } from '../../../shared/text-checks/text-check-messages.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import { renderPrompt, withLanguage } from './prompt-rendering.ts';
import { expectedLanguage, languageName } from '../../text-checks/text-language.ts';
import { answerTexts, callOpenAi, groupRequest } from './text-generation.ts';
import { judgeTexts, settleJudgement } from '../checking/text-checking.ts';
import { failedTextReason } from '../spine/pipeline-core.ts';
import type { EngineCredentials } from '../spine/engine-credentials.ts';
import type { PipelineContext } from '../spine/pipeline-context.ts';

/**
 * Preview: the flow's assistants write for one event as they would in the pipeline
 * (docs/decisions/0040-texts-checked-before-delivery.md): the same prompts, the same
 * checks, one rewrite naming the failures, then the fallback or nothing. Nothing is
 * stored with an event and nothing is delivered; what the calls cost is counted in the
 * flow's spend, since OpenAI charges for them.
 */
export interface PreviewedText {
  assistantName: string;
  klaviyoProperty: string;
  prompt: string;
  /** What would be delivered; null when nothing would (then `error` or the checks say why). */
  text: string | null;
  error: string | null;
  checks: TextChecksRecord | null;
}

export type PreviewFlow = Pick<FlowRecord, 'id' | 'useFlexTier' | 'waitMinutes' | 'textRules'> & { assistants: Assistant[] };

interface Draft {
  assistant: Assistant;
  prompt: string;
  model: string;
  text: string | null;
  error: string | null;
  checks: TextChecksRecord | null;
}

export async function previewTexts(
  context: PipelineContext,
  preview: { userId: string; flow: PreviewFlow; described: NormalizedEvent; credentials: EngineCredentials; signal: AbortSignal },
): Promise<PreviewedText[]> {
  const { userId, flow, described, credentials, signal } = preview;
  const subject = { id: `preview-${randomUUID()}`, userId };
  const language = expectedLanguage(flow.textRules, described);
  const drafts: Draft[] = flow.assistants.map((assistant) => {
    const prompt = withLanguage(renderPrompt(assistant.prompt_template, described).prompt, language && languageName(language));
    return { assistant, prompt, model: assistant.model ?? credentials.openaiModel, text: null, error: prompt ? null : `The prompt of "${assistant.name}" is empty for this event.`, checks: null };
  });
  await write(drafts.filter((draft) => !draft.error));
  await judge(drafts.filter((draft) => draft.text !== null));
  const toRewrite = drafts.filter((draft) => draft.checks?.stage === 'rewrite');
  if (toRewrite.length > 0) {
    // The second text of each, as the pipeline's rows say it: judged as a rewrite.
    for (const draft of toRewrite) draft.checks = { ...draft.checks!, stage: 'recheck' };
    await write(toRewrite, (draft) => {
      const refused = draft.checks!.rejected.at(-1)!;
      return `${draft.prompt}\n\n${textCheckOutcomeMessages.rewriteRequest(refused.text, refused.failures.map((failure) => failure.reason))}`;
    });
    await judge(toRewrite.filter((draft) => draft.text !== null));
  }
  return drafts.map((draft) => ({
    assistantName: draft.assistant.name,
    klaviyoProperty: draft.assistant.klaviyo_property,
    prompt: draft.prompt,
    text: draft.checks?.delivered === 'nothing' ? null : draft.text,
    error: draft.error,
    checks: draft.checks,
  }));

  /** One call per model, as the pipeline makes them; a refused call is that draft's error. */
  async function write(group: Draft[], inputOf: (draft: Draft) => string = (draft) => draft.prompt): Promise<void> {
    const byModel = new Map<string, Draft[]>();
    for (const draft of group) byModel.set(draft.model, [...(byModel.get(draft.model) ?? []), draft]);
    await Promise.all(
      [...byModel.values()].map(async (same) => {
        const request = groupRequest(
          context,
          flow,
          same.map((draft) => ({ assistant: draft.assistant, model: draft.model, instructions: draft.assistant.instructions, input: inputOf(draft) })),
        );
        try {
          const answer = await callOpenAi(context, { event: subject, flow, credentials, signal }, request);
          answerTexts(answer, same.length).forEach((written, index) => {
            const draft = same[index]!;
            draft.text = written.text;
            if (!written.text) draft.error = `OpenAI wrote no text for "${draft.assistant.name}"${written.reason ? `: ${written.reason}` : ''}.`;
          });
        } catch (error) {
          if (!(error instanceof ServiceError) || signal.aborted) throw error;
          for (const draft of same) {
            draft.text = null;
            draft.error = failedTextReason({ assistantName: draft.assistant.name, model: draft.model, failure: error });
          }
        }
      }),
    );
  }

  async function judge(group: Draft[]): Promise<void> {
    const judgements = await judgeTexts(
      context,
      { event: subject, flow, toWrite: described, credentials, signal },
      group.map((draft) => ({ assistant: draft.assistant, text: draft.text!, endedAtOutputLimit: false })),
    );
    group.forEach((draft, index) => {
      const { text, checks } = settleJudgement(draft, judgements[index]!, { rules: flow.textRules, assistant: draft.assistant, described });
      draft.text = text;
      draft.checks = checks;
    });
  }
}
