import { useId } from 'react';
import { stackedTable } from '../ui/stacked-table.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { experimentArmLabel, experimentMessages as m } from '../../shared/experiments/experiment-messages.ts';
import { experimentGroupKeys, HOLDOUT_ARM, type ExperimentGroupKey } from '../../shared/experiments/experiment-settings.ts';
import type { ArmResult, Estimate, Experiment } from '../../shared/experiments/experiment-schemas.ts';
import {
  formatExperimentDate,
  formatMoney,
  formatMoneyRange,
  formatPercent,
  formatPercentRange,
  formatPointsRange,
  formatSignedMoney,
  formatSignedMoneyRange,
  formatSignedPoints,
} from './experiment-format.ts';
import { experimentTexts as t } from './experiment-texts.ts';

const c = t.columns;

/** Whether an arm's texts use what is known of the shopper (the holdout gets no text, so it does not apply). */
function usesShopperContext(experiment: Experiment, key: ExperimentGroupKey): boolean {
  return experiment.arms.find((arm) => arm.key === key)?.shopperContext ?? true;
}

/** A group's name in the results: "Variant B (no shopper context)" for an arm that leaves it out. */
function groupNameOf(experiment: Experiment, key: ExperimentGroupKey): string {
  return key === HOLDOUT_ARM ? t.groupName(key) : t.variant(experimentArmLabel(key, usesShopperContext(experiment, key)));
}

/** How the experiment was set up: what decides the best variant, holdout, split, the minimum (when it matters), automatic promotion, the window. */
export function ExperimentSettings({ experiment }: { experiment: Experiment }) {
  const s = t.settingsSummary;
  const items: Array<[string, string]> = [
    [m.objectiveLabel, m.objectiveName(experiment.objective, experiment.objectiveCurrency)],
    [s.holdout, `${experiment.holdoutPercent} %`],
    [s.split, s.splitNames[experiment.split]],
    ...(experiment.split === 'adaptive' || experiment.autoPromote ? [[s.minExposures, experiment.minExposures.toLocaleString()] as [string, string]] : []),
    [s.autoPromote, experiment.autoPromote ? s.on : s.off],
    [s.window, s.days(experiment.windowDays)],
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-3 lg:grid-cols-6" data-testid="experiment-settings">
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0">
          <dt className="text-slate-600">{label}</dt>
          <dd className="font-medium text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The results said plainly, one sentence each, as the server wrote them. */
export function ExperimentSummary({ experiment }: { experiment: Experiment }) {
  const headingId = useId();
  if (experiment.summary.length === 0) return null;
  return (
    <section aria-labelledby={headingId} className="space-y-1" data-testid="experiment-summary">
      <h4 id={headingId} className="text-sm font-semibold text-slate-900">
        {t.summaryHeading}
      </h4>
      <ul className="list-disc space-y-1 pl-5 text-sm text-slate-800">
        {experiment.summary.map((sentence, index) => (
          <li key={index}>{sentence}</li>
        ))}
      </ul>
    </section>
  );
}

/** Each variant's prompts, under the assistant's name where the flow still has it. */
export function ExperimentPrompts({ experiment, assistants }: { experiment: Experiment; assistants: Flow['assistants'] }) {
  const names = new Map(assistants.map((assistant) => [assistant.klaviyo_property, assistant.name]));
  return (
    <details className="rounded-md border border-slate-200 px-3 py-2 text-sm">
      <summary className="cursor-pointer font-medium text-slate-800">{t.promptsHeading}</summary>
      <div className="mt-2 space-y-3">
        {experiment.arms.map((arm) => (
          <div key={arm.key} className="space-y-1">
            <p className="font-semibold text-slate-900">{groupNameOf(experiment, arm.key)}</p>
            {arm.shopperContext ? null : <p className="text-slate-700">{m.withoutShopperContext}</p>}
            <dl className="space-y-1">
              {Object.entries(arm.prompts).map(([property, prompt]) => (
                <div key={property} className="min-w-0">
                  <dt className="text-slate-600">{names.get(property) ?? property}</dt>
                  <dd className="whitespace-pre-wrap break-words text-slate-900">{prompt}</dd>
                </div>
              ))}
            </dl>
          </div>
        ))}
      </div>
    </details>
  );
}

function NotEnoughData() {
  return <span className="text-slate-600">{m.notEnoughData}</span>;
}

function NotApplicable() {
  return (
    <span>
      <span aria-hidden="true" className="text-slate-600">
        —
      </span>
      <span className="sr-only">{t.notApplicable}</span>
    </span>
  );
}

/** A value with its interval on a smaller line under it. */
function WithInterval({ value, range }: { value: string; range: string }) {
  return (
    <span className="block">
      <span className="block">{value}</span>
      <span className="block text-xs text-slate-600">
        <span className="sr-only">{t.intervalLabel} </span>
        {range}
      </span>
    </span>
  );
}

function Conversion({ estimate }: { estimate: Estimate | null }) {
  return estimate ? <WithInterval value={formatPercent(estimate.value)} range={formatPercentRange(estimate)} /> : <NotEnoughData />;
}

function Lift({ group }: { group: ArmResult }) {
  if (group.key === HOLDOUT_ARM) return <NotApplicable />;
  if (!group.liftOverHoldout) return <NotEnoughData />;
  return <WithInterval value={t.points(formatSignedPoints(group.liftOverHoldout.value))} range={formatPointsRange(group.liftOverHoldout)} />;
}

function ProbabilityBest({ group }: { group: ArmResult }) {
  if (group.key === HOLDOUT_ARM) return <NotApplicable />;
  return group.probabilityBest === null ? <NotEnoughData /> : <>{formatPercent(group.probabilityBest)}</>;
}

/** Per currency: the total, then per shopper with its interval, then (for a variant) the difference from the holdout with its interval. */
function Revenue({ group }: { group: ArmResult }) {
  if (group.revenue.length === 0) return <span className="text-slate-600">{t.noRevenue}</span>;
  return (
    <ul className="space-y-1">
      {group.revenue.map((entry) => (
        <li key={entry.currency}>
          <span className="block">{formatMoney(entry.total, entry.currency)}</span>
          <span className="block text-xs text-slate-600">{t.perShopper(formatMoney(entry.perExposure.value, entry.currency))}</span>
          <span className="block text-xs text-slate-600">
            <span className="sr-only">{t.intervalLabel} </span>
            {formatMoneyRange(entry.perExposure, entry.currency)}
          </span>
          {entry.liftOverHoldout ? (
            <span className="mt-1 block text-xs text-slate-700" data-testid={`revenue-lift-${entry.currency}`}>
              <span className="block">{m.overHoldout(formatSignedMoney(entry.liftOverHoldout.value, entry.currency))}</span>
              <span className="block text-slate-600">
                <span className="sr-only">{t.intervalLabel} </span>
                {formatSignedMoneyRange(entry.liftOverHoldout, entry.currency)}
              </span>
            </span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * One row per group (the variants, then the holdout): shoppers, orders, conversion, revenue
 * per currency, the chance of being best, the lift over the holdout and, while it runs, the
 * traffic share.
 * A table from `sm` up (scrolling sideways inside the card where the card is narrower than
 * it), a list of cards on a phone.
 */
export function ExperimentResults({ experiment }: { experiment: Experiment }) {
  const captionId = useId();
  const groups = [...experiment.groups].sort((a, b) => experimentGroupKeys.indexOf(a.key) - experimentGroupKeys.indexOf(b.key));
  // An ended experiment sends nobody anywhere: its traffic shares are all nothing.
  const running = experiment.status === 'running';
  const headers = [c.group, c.exposures, c.orders, c.converted, c.conversion, c.revenue, c.probabilityBest, c.lift, ...(running ? [c.trafficShare] : [])];
  return (
    // Focusable, so a keyboard can scroll it where it is wider than the card.
    <div role="region" aria-labelledby={captionId} tabIndex={0} className="rounded-md border border-slate-200 focus-visible:outline-2 focus-visible:outline-indigo-600 sm:overflow-x-auto">
      <table className={stackedTable.table}>
        <caption id={captionId} className="sr-only">
          {t.resultsCaption(formatExperimentDate(experiment.startedAt))}
        </caption>
        <thead className={`${stackedTable.head} bg-slate-50`}>
          <tr>
            {headers.map((header, index) => (
              <th key={header} scope="col" className={`px-3 py-2 ${index === 0 ? 'text-left' : 'text-right'}`}>
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={stackedTable.body}>
          {groups.map((group) => {
            const key = group.key;
            return (
              <tr key={key} data-testid={`experiment-group-${key}`} className={`${stackedTable.row} align-top`}>
                <th scope="row" className={stackedTable.rowHeader}>
                  {groupNameOf(experiment, key)}
                  {experiment.winner !== null && experiment.winner === key ? (
                    <span className="ml-2 rounded-full bg-green-100 px-2 py-0.5 text-xs font-semibold text-green-800">{t.winner}</span>
                  ) : null}
                </th>
                <td data-label={c.exposures} className={stackedTable.numberCell}>
                  {group.exposures.toLocaleString()}
                </td>
                <td data-label={c.orders} className={stackedTable.numberCell}>
                  {group.orders.toLocaleString()}
                </td>
                <td data-label={c.converted} className={stackedTable.numberCell}>
                  {group.converted.toLocaleString()}
                </td>
                <td data-label={c.conversion} className={`${stackedTable.numberCell} sm:whitespace-nowrap`}>
                  <Conversion estimate={group.conversion} />
                </td>
                <td data-label={c.revenue} className={`${stackedTable.numberCell} sm:whitespace-nowrap`}>
                  <Revenue group={group} />
                </td>
                <td data-label={c.probabilityBest} className={stackedTable.numberCell}>
                  <ProbabilityBest group={group} />
                </td>
                <td data-label={c.lift} className={`${stackedTable.numberCell} sm:whitespace-nowrap`}>
                  <Lift group={group} />
                </td>
                {running ? (
                  <td data-label={c.trafficShare} className={stackedTable.numberCell}>
                    {formatPercent(group.trafficShare)}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
