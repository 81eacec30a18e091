import { flowSectionPath } from '../../shared/routes.ts';
import { useId, useState, type ReactNode } from 'react';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { TextLink } from '../ui/text-link.tsx';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import { estimatedCostNote, formatCost } from '../../shared/flows/flow-costs.ts';
import { revenuePeriods, type RevenuePeriod } from '../../shared/attribution/attribution-periods.ts';
import type { CurrencyRevenue, RevenueFigures } from '../../shared/attribution/attribution-schemas.ts';
import { attributionMessages as m } from '../../shared/attribution/attribution-messages.ts';
import { useRevenue } from './use-revenue.ts';

/** An amount in the order's own currency; a code the browser does not know is shown as given. */
export function formatMoney(amount: string, currency: string | null): string {
  if (currency) {
    try {
      return new Intl.NumberFormat('en', { style: 'currency', currency }).format(Number(amount));
    } catch {
      // Not an ISO 4217 code: the shop's own words are shown instead.
    }
  }
  return currency ? `${amount} ${currency}` : amount;
}

function formatRate(rate: number | null): string {
  return rate === null ? '–' : `${(rate * 100).toFixed(1)} %`;
}

function RevenueList({ revenue }: { revenue: CurrencyRevenue[] }) {
  if (revenue.length === 0) return <span className="text-slate-600">{m.noRevenue}</span>;
  return (
    <ul className="space-y-0.5">
      {revenue.map((entry) => (
        <li key={entry.currency ?? ''} data-testid="revenue-amount" className="break-words">
          {formatMoney(entry.amount, entry.currency)}
        </li>
      ))}
    </ul>
  );
}

function Figures({ figures }: { figures: RevenueFigures }) {
  const items: Array<[string, ReactNode]> = [
    [m.figures.revenue, <RevenueList key="revenue" revenue={figures.revenue} />],
    [m.figures.attributedOrders, figures.attributedOrders.toLocaleString('en')],
    [m.figures.deliveries, figures.deliveries.toLocaleString('en')],
    [m.figures.conversionRate, formatRate(figures.conversionRate)],
    [m.figures.cost, figures.costEstimated ? <span title={estimatedCostNote}>{formatCost(figures.costUsd, true)}</span> : formatCost(figures.costUsd, false)],
    [m.figures.tokens, figures.tokens.toLocaleString('en')],
  ];
  return (
    <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3">
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0 space-y-1">
          <dt className="text-sm text-slate-600">{label}</dt>
          <dd className="text-lg font-semibold text-slate-900 tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Revenue recovered for the last 7 or 30 days: the owner's figures in all (the dashboard)
 * or one flow's (its page), and the credited orders, each linking to the delivery it is
 * credited to in that flow's event log.
 */
export function RevenuePanel({ flowType }: { flowType?: FlowType }) {
  const [days, setDays] = useState<RevenuePeriod>(7);
  const revenue = useRevenue(days);
  const headingId = useId();
  const figures = flowType ? revenue.data?.flows.find((flow) => flow.flowType === flowType) : revenue.data?.total;
  const orders = (revenue.data?.orders ?? []).filter((order) => !flowType || order.flowType === flowType);
  return (
    <section aria-labelledby={headingId} className="space-y-4" data-testid="revenue-panel">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={headingId} className="text-xl font-semibold text-slate-900">
          {m.heading}
        </h2>
        <div role="group" aria-label={m.periodLabel} className="inline-flex rounded-md border border-slate-300 bg-white">
          {revenuePeriods.map((period) => (
            <button
              key={period}
              type="button"
              aria-pressed={days === period}
              onClick={() => setDays(period)}
              className={`px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 ${days === period ? 'bg-indigo-600 text-white' : 'text-slate-700 hover:bg-slate-50'}`}
            >
              {m.periods[period]}
            </button>
          ))}
        </div>
      </div>
      <Card>
        {revenue.isPending ? (
          <Spinner label="Loading revenue" />
        ) : revenue.error ? (
          <p role="alert" className="text-sm text-red-700">
            {m.loadFailed}: {revenue.error.message}
          </p>
        ) : (
          <div className="space-y-6">
            <p className="text-sm text-slate-700">{m.intro(revenue.data.windowDays)}</p>
            {figures ? <Figures figures={figures} /> : null}
            <div className="space-y-2">
              <h3 className="text-base font-semibold text-slate-900">{m.ordersHeading}</h3>
              {orders.length === 0 ? (
                <p className="text-sm text-slate-600">{m.noOrders}</p>
              ) : (
                <ul className="divide-y divide-slate-200 text-sm">
                  {orders.map((order) => (
                    <li key={order.orderKey} data-testid="attributed-order" className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 py-2">
                      <span className="min-w-0 break-words">
                        <span className="font-semibold text-slate-900">{order.amount === null ? '–' : formatMoney(order.amount, order.currency)}</span>{' '}
                        <span className="text-slate-600">
                          {flowTypeDetails[order.flowType].title} · {new Date(order.orderedAt).toLocaleString('en')}
                        </span>
                      </span>
                      {order.deliveryEventId ? (
                        <TextLink to={`${flowSectionPath(flowTypeDetails[order.flowType].path, 'events')}?event=${encodeURIComponent(order.deliveryEventId)}`}>{m.openDelivery}</TextLink>
                      ) : (
                        <span className="text-slate-600">{m.deliveryDeleted}</span>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        )}
      </Card>
    </section>
  );
}
