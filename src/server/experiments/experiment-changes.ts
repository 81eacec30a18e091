import type pg from 'pg';
import { inTransaction, type Queryable } from '../database/database.ts';
import { isRefused, refused, type Refused } from '../platform/http-errors.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { placeholderProblemsOf } from '../../shared/flows/flow-schemas.ts';
import { experimentMessages as m } from '../../shared/experiments/experiment-messages.ts';
import { experimentArmKeys, PROMOTE_PROBABILITY, type ExperimentArmKey } from '../../shared/experiments/experiment-settings.ts';
import type { ExperimentSetup } from '../../shared/experiments/experiment-schemas.ts';
import { findFlowForUser, saveAssistantPrompts, type FlowRecord } from '../flows/flow-queries.ts';
import {
  countGroups,
  endExperiment,
  findRunningExperiment,
  insertExperiment,
  listAutoPromoting,
  sumGroupRevenue,
  updateExperimentSettings,
  type ExperimentArm,
  type ExperimentRecord,
  type GroupCounts,
  type GroupRevenue,
} from './experiment-queries.ts';
import { forgetRunningExperiment } from './experiment-assignment.ts';
import { chancesOfBest, revenueCurrencyOf } from './experiment-objective.ts';

/**
 * What an owner (or the automatic promotion) does to a flow's experiment
 * (docs/decisions/0043-experiments.md): start one, change it, promote a winner, end it.
 * Changing who gets what (a variant's prompts or shopper context, the holdout share) ends
 * the running experiment and starts a new one, so no experiment's figures mix two set-ups;
 * the split's rule, its minimum, automatic promotion and the objective change in place (they
 * decide how the same counts are read, not what was measured).
 */

/** The arms as stored, each variant held to the flow's assistants: one prompt for each, none for another. */
function armsFor(flow: FlowRecord, setup: ExperimentSetup): ExperimentArm[] | Refused {
  const properties = flow.assistants.map((assistant) => assistant.klaviyo_property);
  const arms: ExperimentArm[] = [];
  for (const [index, arm] of setup.arms.entries()) {
    const key = experimentArmKeys[index]!;
    const fieldErrors: Record<string, string> = {};
    for (const property of Object.keys(arm.prompts)) {
      if (!properties.includes(property)) fieldErrors[`arms.${index}.prompts.${property}`] = m.unknownProperty(property);
    }
    for (const property of properties) {
      if (arm.prompts[property] === undefined) fieldErrors[`arms.${index}.prompts.${property}`] = m.missingProperty(key, property);
    }
    const assistants = properties.map((property) => ({ property, prompt_template: arm.prompts[property] ?? '' }));
    for (const problem of placeholderProblemsOf(flow.flowType, assistants)) {
      if (arm.prompts[assistants[problem.index]!.property] !== undefined) fieldErrors[`arms.${index}.prompts.${assistants[problem.index]!.property}`] = problem.message;
    }
    const first = Object.values(fieldErrors)[0];
    if (first) return refused(apiErrorCodes.validation, first, { fieldErrors });
    arms.push({ key, prompts: Object.fromEntries(properties.map((property) => [property, arm.prompts[property]!])), shopperContext: arm.shopperContext });
  }
  return arms;
}

/** The same arms, prompt by prompt (a stored arm's prompts come back from jsonb in its own key order). */
function sameArms(stored: readonly ExperimentArm[], wanted: readonly ExperimentArm[]): boolean {
  if (stored.length !== wanted.length) return false;
  return wanted.every((arm, index) => {
    const other = stored[index]!;
    const properties = Object.keys(arm.prompts);
    return (
      other.key === arm.key &&
      other.shopperContext === arm.shopperContext &&
      Object.keys(other.prompts).length === properties.length &&
      properties.every((property) => other.prompts[property] === arm.prompts[property])
    );
  });
}

export type SetUpOutcome = 'started' | 'restarted' | 'updated';

export async function setUpExperiment(pool: pg.Pool, flow: FlowRecord, setup: ExperimentSetup, now: Date): Promise<SetUpOutcome | Refused> {
  const arms = armsFor(flow, setup);
  if (isRefused(arms)) return arms;
  const outcome = await inTransaction(pool, async (client) => {
    // One change to a flow's experiment at a time (the running one is unique per flow).
    await findFlowForUser(client, flow.userId, flow.flowType, { forUpdate: true });
    const running = await findRunningExperiment(client, flow.id);
    const settings = {
      split: setup.split,
      minExposures: setup.minExposures,
      autoPromote: setup.autoPromote,
      objective: setup.objective,
      // A currency sent with the conversion objective decides nothing, so none is kept.
      objectiveCurrency: setup.objective === 'revenue_per_exposure' ? setup.objectiveCurrency : null,
    };
    if (running && sameArms(running.arms, arms) && running.holdoutPercent === setup.holdoutPercent) {
      await updateExperimentSettings(client, running.id, settings);
      return { outcome: 'updated' as const, changed: running.id };
    }
    if (running) await endExperiment(client, running.id, { at: now, reason: 'changed', winner: null });
    await insertExperiment(client, { userId: flow.userId, flowId: flow.id, arms, holdoutPercent: setup.holdoutPercent, ...settings, startedAt: now });
    return { outcome: running ? ('restarted' as const) : ('started' as const), changed: running?.id };
  });
  forgetRunningExperiment(flow.id, outcome.changed);
  return outcome.outcome;
}

/** The winner's prompts become the flow's prompts, and the experiment ends keeping its record; false when it had ended already. */
async function promote(db: Queryable, experiment: ExperimentRecord, winner: ExperimentArm, ending: { reason: 'promoted' | 'auto_promoted'; now: Date }): Promise<boolean> {
  const { reason, now } = ending;
  if (!(await endExperiment(db, experiment.id, { at: now, reason, winner: winner.key }))) return false;
  await saveAssistantPrompts(db, experiment.flowId, winner.prompts);
  return true;
}

export async function promoteArm(pool: pg.Pool, flow: FlowRecord, arm: ExperimentArmKey, now: Date): Promise<Refused | null> {
  const outcome = await inTransaction(pool, async (client) => {
    const running = await findRunningExperiment(client, flow.id);
    if (!running) return refused(apiErrorCodes.not_found, m.noExperiment);
    const winner = running.arms.find((candidate) => candidate.key === arm);
    if (!winner) return refused(apiErrorCodes.validation, m.noSuchArm(arm), { fieldErrors: { arm: m.noSuchArm(arm) } });
    return (await promote(client, running, winner, { reason: 'promoted', now })) ? null : refused(apiErrorCodes.not_found, m.noExperiment);
  });
  forgetRunningExperiment(flow.id);
  return outcome;
}

export async function stopExperiment(pool: pg.Pool, flow: FlowRecord, now: Date): Promise<Refused | null> {
  const running = await findRunningExperiment(pool, flow.id);
  forgetRunningExperiment(flow.id);
  if (!running || !(await endExperiment(pool, running.id, { at: now, reason: 'stopped', winner: null }))) return refused(apiErrorCodes.not_found, m.noExperiment);
  return null;
}

/**
 * The arm to promote by itself, if any: every arm has its minimum of exposures and one is
 * the best by the experiment's objective with at least PROMOTE_PROBABILITY.
 */
export function armToPromote(experiment: ExperimentRecord, counts: readonly GroupCounts[], revenue: readonly GroupRevenue[]): ExperimentArm | null {
  if (!experiment.autoPromote || experiment.arms.length < 2) return null;
  const exposures = experiment.arms.map((arm) => counts.find((count) => count.group === arm.key)?.exposures ?? 0);
  if (exposures.some((count) => count < experiment.minExposures)) return null;
  const chances = chancesOfBest(experiment, counts, revenue);
  if (!chances) return null;
  const best = chances.indexOf(Math.max(...chances));
  return chances[best]! >= PROMOTE_PROBABILITY ? experiment.arms[best]! : null;
}

/** Every minute (pg-boss cron, UTC): a winner is promoted within a minute of the evidence. */
export const EXPERIMENT_PROMOTION_SCHEDULE = '* * * * *';

/** The scheduled check (every minute, in one worker): promotes each winner the evidence has found. Returns how many. */
export async function promoteWinners(pool: pg.Pool, now: Date): Promise<number> {
  let promoted = 0;
  for (const experiment of await listAutoPromoting(pool)) {
    const [counts, revenue] = await Promise.all([countGroups(pool, experiment.id), revenueCurrencyOf(experiment) === null ? [] : sumGroupRevenue(pool, experiment.id)]);
    const arm = armToPromote(experiment, counts, revenue);
    if (!arm) continue;
    if (await inTransaction(pool, (client) => promote(client, experiment, arm, { reason: 'auto_promoted', now }))) promoted += 1;
    forgetRunningExperiment(experiment.flowId);
  }
  return promoted;
}
