import { flowAlertMessages as m } from '../../shared/alerts/flow-alert-messages.ts';
import type { FlowAlertReason } from '../../shared/alerts/flow-alert-schemas.ts';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import { mailLayout } from './account-mails.ts';
import type { OutgoingMail } from './mailer.ts';

/** The one mail a day about a flow that stopped writing texts: what stopped it and what lifts it. */
export function flowAlertMail(
  owner: { email: string; fullName: string },
  stop: { flowType: FlowType; reason: FlowAlertReason; detail: string },
  publicUrl: string,
): OutgoingMail {
  const details = flowTypeDetails[stop.flowType];
  return {
    to: owner.email,
    subject: m.mailSubject(details.title),
    ...mailLayout(`Hello ${owner.fullName},`, [`${m.title(details.title)}. ${m.reason[stop.reason](stop.detail, 1)}`, m.mailFooter], {
      url: `${publicUrl}${details.path}`,
      label: m.mailOpen,
    }),
  };
}
