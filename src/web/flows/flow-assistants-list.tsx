import { Link } from 'react-router';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { flowSectionPath } from '../../shared/routes.ts';
import { KlaviyoTag } from './klaviyo-tag.tsx';

const TEMPLATE_PREVIEW_LENGTH = 60;

/** The start of a prompt template, short enough for one line of the list. */
export function truncateTemplate(template: string, maxLength = TEMPLATE_PREVIEW_LENGTH): string {
  return template.length <= maxLength ? template : `${template.slice(0, maxLength - 1).trimEnd()}…`;
}

/**
 * The flow page's Assistants section: each assistant's name, its Klaviyo property with the
 * tag to paste into an email, and the start of its prompt; editing them is the settings'.
 */
export function FlowAssistantsList({ flow }: { flow: Flow }) {
  return (
    <section aria-labelledby="flow-assistants-heading" className="space-y-3">
      <h2 id="flow-assistants-heading" className="text-lg font-semibold">
        AI Assistants
      </h2>
      {flow.assistants.length === 0 ? (
        <p className="text-sm text-slate-700">{flowMessages.noAssistants}</p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-md border border-slate-200">
          {flow.assistants.map((assistant) => (
            <li key={assistant.klaviyo_property} className="space-y-1 px-4 py-3" data-testid="flow-assistant">
              <p className="font-medium text-slate-900">{assistant.name}</p>
              <p className="font-mono text-xs text-slate-700">{assistant.klaviyo_property}</p>
              <p className="text-sm text-slate-700" title={assistant.prompt_template}>
                {truncateTemplate(assistant.prompt_template)}
              </p>
              <KlaviyoTag property={assistant.klaviyo_property} />
            </li>
          ))}
        </ul>
      )}
      <Link to={flowSectionPath(flowTypeDetails[flow.flowType].path, 'settings')} className="inline-block text-sm font-semibold text-indigo-700 hover:underline">
        Edit the assistants in Settings
      </Link>
    </section>
  );
}
