import type pg from 'pg';
import type { Logger } from 'pino';
import type { FlowAlertReason } from '../../shared/alerts/flow-alert-schemas.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { findUserById } from '../auth/account-queries.ts';
import type { Mailer } from '../mail/mailer.ts';
import { flowAlertMail } from '../mail/flow-alert-mails.ts';
import { claimFlowAlertMail, recordFlowAlert } from './flow-alert-queries.ts';

/** A flow stopped writing a text for a reason its owner controls. */
export interface FlowStop {
  flowId: string;
  flowType: FlowType;
  userId: string;
  reason: FlowAlertReason;
  /** What the reason needs said in full: the cap, the budget in dollars, the service. */
  detail: string;
  at: Date;
}

export interface FlowAlerts {
  flowStopped(stop: FlowStop): Promise<void>;
}

/**
 * Told when a flow stops writing texts for a reason its owner controls
 * (docs/decisions/0041-flow-alerts.md): counts the stop for the dashboard and the flow
 * page, and mails the owner once per flow and UTC day. A mail that cannot be sent is
 * logged, not retried: the pages say the same, and an event never waits for a mail.
 */
export function createFlowAlerts(deps: { pool: pg.Pool; mailer: Mailer; publicUrl: string; logger: Logger }): FlowAlerts {
  return {
    async flowStopped(stop) {
      await recordFlowAlert(deps.pool, stop);
      if (!(await claimFlowAlertMail(deps.pool, stop.flowId, stop.at))) return;
      const owner = await findUserById(deps.pool, stop.userId);
      if (!owner) return;
      try {
        await deps.mailer.send(flowAlertMail(owner, stop, deps.publicUrl));
      } catch (error) {
        deps.logger.warn({ flowId: stop.flowId, reason: stop.reason, error: (error as Error).message }, 'the mail about a stopped flow was not sent');
      }
    },
  };
}
