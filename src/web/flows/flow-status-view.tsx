import { Link, useNavigate, useSearchParams } from 'react-router';
import { flowSectionPath, webhookConsoleParam } from '../../shared/routes.ts';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { toast } from '../app/toast.ts';
import { FlaskConical, Settings } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowCapMessages, flowMessages, textRuleMessages } from '../../shared/flows/flow-messages.ts';
import { describeWait } from '../../shared/flows/flow-wait.ts';
import type { TextRules } from '../../shared/flows/text-rules-schemas.ts';
import { textLanguageName } from '../../shared/text-checks/text-languages.ts';
import { WebhookUrlRotation } from './webhook-url-rotation.tsx';

const count = (n: number, one: string, many: string) => (n === 0 ? `no ${many}` : `${n} ${n === 1 ? one : many}`);

/**
 * Wanted in textRuleMessages: one line of the status that sums up a flow's text rules,
 * e.g. "Checks before delivery: texts in German, 2 discount codes, a Klaviyo coupon, no
 * banned words; a text that fails twice is replaced by its fallback text."
 */
export function textRulesSummary(rules: TextRules): string {
  const parts = [
    `texts in ${rules.language === 'shopper' ? "the shopper's language" : textLanguageName(rules.language)}`,
    count(rules.discountCodes.length, 'discount code', 'discount codes'),
    ...(rules.offersCoupon ? ['a Klaviyo coupon'] : []),
    count(rules.bannedPhrases.length, 'banned word', 'banned words'),
  ];
  const onFailed = rules.onFailedChecks === 'fallback' ? 'a text that fails twice is replaced by its fallback text' : 'nothing is sent for a text that fails twice';
  return `${textRuleMessages.sectionTitle}: ${parts.join(', ')}; ${onFailed}.`;
}

/**
 * The status view of a flow (docs/product/specification.md §2): status, webhook URL and
 * Configure Flow, at the top of the flow page. The assistants and the signature have
 * sections of their own (flow-assistants-list.tsx, the store section).
 */
export function FlowStatusView({ flow }: { flow: Flow }) {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const consoleOpen = searchParams.get(webhookConsoleParam) === '1';
  return (
    <div className="space-y-8">
      <section aria-labelledby="flow-status-heading" className="space-y-2">
        <div className="flex items-center gap-3">
          <h2 id="flow-status-heading" className="text-lg font-semibold">
            Flow Status
          </h2>
          <span
            data-testid="flow-status-badge"
            className={`rounded-full px-2.5 py-0.5 text-xs font-semibold ${flow.isActive ? 'bg-green-100 text-green-800' : 'bg-slate-200 text-slate-800'}`}
          >
            {flow.isActive ? 'Active' : 'Inactive'}
          </span>
        </div>
        <p className="text-sm text-slate-700">{flow.isActive ? flowMessages.active : flowMessages.inactive}</p>
        {flow.waitMinutes !== null ? (
          <p className="text-sm text-slate-700">Content is generated {describeWait(flow.waitMinutes)} after the shopper&apos;s last activity.</p>
        ) : null}
        {flow.klaviyoEventName ? (
          <p className="text-sm text-slate-700">Sends the Klaviyo event &ldquo;{flow.klaviyoEventName}&rdquo; once the content is ready.</p>
        ) : null}
        <p className="text-sm text-slate-700" data-testid="flow-caps">
          {flow.shopperCooldownHours === 0 ? flowCapMessages.shopperCooldownOff : flowCapMessages.shopperCooldown(flow.shopperCooldownHours)}{' '}
          {flowCapMessages.dailyGenerationCap(flow.dailyGenerationCap)}
        </p>
        <p className="text-sm text-slate-700" data-testid="flow-cost-settings">
          {flow.dailyBudgetUsd === null ? flowCapMessages.noBudget : flowCapMessages.budget(flow.dailyBudgetUsd, flow.overBudget)}{' '}
          {flow.reuseWindowHours === 0 ? flowCapMessages.reuseOff : flowCapMessages.reuse(flow.reuseWindowHours)}
          {flow.waitMinutes !== null && flow.useFlexTier ? ` ${flowCapMessages.flexOn}` : ''}
        </p>
        <p className="text-sm text-slate-700" data-testid="flow-text-rules">
          {textRulesSummary(flow.textRules)}
        </p>
      </section>

      <section aria-labelledby="flow-webhook-heading" className="space-y-2">
        <h2 id="flow-webhook-heading" className="text-lg font-semibold">
          Webhook URL
        </h2>
        {flow.webhookUrl ? (
          <>
            <p className="break-all rounded-md bg-slate-100 px-3 py-2 font-mono text-sm text-slate-800" data-testid="flow-webhook-url">
              {flow.webhookUrl}
            </p>
            <p className="text-sm text-slate-700">{flowMessages.webhookUrlHint}</p>
            <Link
              to={`?${webhookConsoleParam}=1`}
              onClick={() => {
                if (!consoleOpen) toast.info(flowMessages.webhookTesterOpened);
              }}
              className="inline-flex items-center gap-2 text-sm font-semibold text-indigo-700 hover:underline"
            >
              <FlaskConical aria-hidden="true" className="h-4 w-4" />
              Test Webhook
            </Link>
            <WebhookUrlRotation flow={flow} />
          </>
        ) : (
          <p className="text-sm text-slate-700">{flowMessages.noWebhookUrl}</p>
        )}
      </section>

      <Button onClick={() => navigate(flowSectionPath(flowTypeDetails[flow.flowType].path, 'settings'))}>
        <Settings aria-hidden="true" className="h-4 w-4" />
        Configure Flow
      </Button>
    </div>
  );
}
