import type { Queryable } from '../database/database.ts';
import type { FlowAlertReason } from '../../shared/alerts/flow-alert-schemas.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';

/**
 * Flows that stopped writing texts, per UTC day and reason (docs/decisions/0041-flow-alerts.md).
 * This module owns `flow_alerts` and `flow_alert_mails`.
 */
export interface FlowAlertRow {
  flowType: FlowType;
  reason: FlowAlertReason;
  events: number;
  detail: string;
  firstAt: Date;
  lastAt: Date;
}

/** Counts one more event of the flow's day that got no text for `reason`. */
export async function recordFlowAlert(
  db: Queryable,
  alert: { flowId: string; userId: string; reason: FlowAlertReason; detail: string; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO flow_alerts (flow_id, day, reason, user_id, events, detail, first_at, last_at)
     VALUES ($1, ($5::timestamptz AT TIME ZONE 'UTC')::date, $2, $3, 1, $4, $5, $5)
     ON CONFLICT (flow_id, day, reason) DO UPDATE SET
       events = flow_alerts.events + 1, detail = EXCLUDED.detail, last_at = greatest(flow_alerts.last_at, EXCLUDED.last_at)`,
    [alert.flowId, alert.reason, alert.userId, alert.detail, alert.at],
  );
}

/** True for the one caller that may mail the owner about the flow's day. */
export async function claimFlowAlertMail(db: Queryable, flowId: string, at: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO flow_alert_mails (flow_id, day, sent_at) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $2) ON CONFLICT DO NOTHING`,
    [flowId, at],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The owner's alerts of the UTC day of `now` that still stand: an alert is over once the
 * owner changed what lifts it after its last event (the flow's settings for a cap, budget
 * or checks; the saved keys for a refused key).
 */
export async function listStandingFlowAlerts(db: Queryable, userId: string, now: Date): Promise<FlowAlertRow[]> {
  const { rows } = await db.query<{ flow_type: FlowType; reason: FlowAlertReason; events: number; detail: string; first_at: Date; last_at: Date }>(
    `SELECT flows.flow_type, alert.reason, alert.events, alert.detail, alert.first_at, alert.last_at
       FROM flow_alerts AS alert
       JOIN flows ON flows.id = alert.flow_id
       LEFT JOIN api_credentials AS credentials ON credentials.user_id = alert.user_id
      WHERE alert.user_id = $1 AND alert.day = ($2::timestamptz AT TIME ZONE 'UTC')::date
        AND CASE WHEN alert.reason = 'key_refused' THEN coalesce(credentials.updated_at < alert.last_at, true)
                 ELSE flows.updated_at < alert.last_at END
      ORDER BY alert.last_at DESC`,
    [userId, now],
  );
  return rows.map((row) => ({ flowType: row.flow_type, reason: row.reason, events: row.events, detail: row.detail, firstAt: row.first_at, lastAt: row.last_at }));
}
