import type { Queryable } from '../database/database.ts';
import type { ServiceConditionKind } from '../../shared/service-conditions/service-condition-schemas.ts';

/**
 * Conditions of an owner's services that make every later event slower, dearer or fail
 * (docs/decisions/0047-service-conditions.md). This module owns `service_conditions`.
 */
export interface ServiceConditionRow {
  userId: string;
  kind: ServiceConditionKind;
  subject: string;
  detail: string;
  firstAt: Date;
  lastAt: Date;
  checkedAt: Date;
}

interface Row {
  user_id: string;
  kind: ServiceConditionKind;
  subject: string;
  detail: string;
  first_at: Date;
  last_at: Date;
  checked_at: Date;
}

const columns = 'condition.user_id, condition.kind, condition.subject, condition.detail, condition.first_at, condition.last_at, condition.checked_at';

function conditionOf(row: Row): ServiceConditionRow {
  return { userId: row.user_id, kind: row.kind, subject: row.subject, detail: row.detail, firstAt: row.first_at, lastAt: row.last_at, checkedAt: row.checked_at };
}

/**
 * An event met the condition at `at`: recorded, or its last time and words brought up to
 * date. A row that no longer stood (the owner changed their keys since) starts again. The
 * time of its last check is left alone (only a re-check's claim moves it), so events that
 * keep meeting it never put the periodic re-check off.
 */
export async function raiseServiceCondition(
  db: Queryable,
  condition: { userId: string; kind: ServiceConditionKind; subject: string; detail: string; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO service_conditions AS condition (user_id, kind, subject, detail, first_at, last_at, checked_at)
     VALUES ($1, $2, $3, $4, $5, $5, $5)
     ON CONFLICT (user_id, kind, subject) DO UPDATE SET
       detail = EXCLUDED.detail,
       first_at = CASE WHEN EXISTS (SELECT 1 FROM api_credentials AS credentials WHERE credentials.user_id = condition.user_id AND credentials.updated_at >= condition.last_at)
                       THEN EXCLUDED.first_at ELSE condition.first_at END,
       last_at = greatest(condition.last_at, EXCLUDED.last_at)`,
    [condition.userId, condition.kind, condition.subject, condition.detail, condition.at],
  );
}

/** The condition is gone (the service answered as it should); true when there was one. */
export async function clearServiceCondition(db: Queryable, userId: string, kind: ServiceConditionKind, subject = ''): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM service_conditions WHERE user_id = $1 AND kind = $2 AND subject = $3', [userId, kind, subject]);
  return (rowCount ?? 0) > 0;
}

/**
 * The owner's conditions that still stand: met by an event after the owner last saved
 * their keys (a new key or store is tried afresh: if it is refused too, the next event says
 * so again), and for a model, only while the default model or an active flow's assistant still names it.
 */
export async function listStandingServiceConditions(db: Queryable, userId: string): Promise<ServiceConditionRow[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${columns}
       FROM service_conditions AS condition
       LEFT JOIN api_credentials AS credentials ON credentials.user_id = condition.user_id
      WHERE condition.user_id = $1
        AND (credentials.updated_at IS NULL OR credentials.updated_at < condition.last_at)
        AND (condition.kind <> 'openai_model_unavailable'
             OR credentials.openai_model = condition.subject
             OR EXISTS (SELECT 1 FROM flows, jsonb_array_elements(flows.assistants) AS assistant
                         WHERE flows.user_id = condition.user_id AND flows.is_active AND assistant ->> 'model' = condition.subject))
      ORDER BY condition.first_at`,
    [userId],
  );
  return rows.map(conditionOf);
}

/** Conditions of `kind` last asked about before `before`: the periodic re-check's work, oldest first. */
export async function listServiceConditionsDueForCheck(db: Queryable, kind: ServiceConditionKind, before: Date, limit: number): Promise<ServiceConditionRow[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${columns} FROM service_conditions AS condition WHERE condition.kind = $1 AND condition.checked_at < $2 ORDER BY condition.checked_at LIMIT $3`,
    [kind, before, limit],
  );
  return rows.map(conditionOf);
}

/**
 * Claims one condition's re-check: true for the one process that moved its check time,
 * so two workers never ask the same store at once.
 */
export async function claimServiceConditionCheck(db: Queryable, condition: Pick<ServiceConditionRow, 'userId' | 'kind' | 'subject' | 'checkedAt'>, at: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE service_conditions SET checked_at = $5 WHERE user_id = $1 AND kind = $2 AND subject = $3 AND checked_at = $4',
    [condition.userId, condition.kind, condition.subject, condition.checkedAt, at],
  );
  return (rowCount ?? 0) > 0;
}
