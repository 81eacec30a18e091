import type { FlowAlertReason } from './flow-alert-schemas.ts';

const shoppers = (count: number) => (count === 1 ? '1 shopper got no text' : `${count.toLocaleString('en-US')} shoppers got no text`);

/** The alert's words: what stopped, how many it touched today, and the control that lifts it. */
export const flowAlertMessages = {
  title: (flowTitle: string) => `${flowTitle} stopped writing texts`,
  reason: {
    daily_cap: (detail: string, count: number) =>
      `It reached its limit of ${detail} events a day; ${shoppers(count)} today. Raise "Events a day" under Configure Flow, or the texts start again tomorrow (UTC).`,
    budget: (detail: string, count: number) =>
      `It spent its daily budget of $${detail}; ${shoppers(count)} today. Raise "Daily budget (USD)" under Configure Flow, or the texts start again tomorrow (UTC).`,
    checks: (_detail: string, count: number) =>
      `Texts failed their checks twice and nothing was sent; ${shoppers(count)} today. Open the event log to see which check failed, then adjust the flow's discount codes, banned words or language, or give its assistants a fallback text, under Configure Flow.`,
    key_refused: (detail: string, count: number) =>
      `${detail} refused the saved API key; ${shoppers(count)} today. Save a working key in API Settings, then replay the failed events from the event log.`,
  } satisfies Record<FlowAlertReason, (detail: string, count: number) => string>,
  mailSubject: (flowTitle: string) => `Flowsmith: ${flowTitle} stopped writing texts`,
  mailOpen: 'Open the flow',
  mailFooter: 'You get at most one such mail per flow and day. The dashboard shows the latest.',
} as const;
