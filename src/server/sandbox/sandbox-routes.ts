import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpError } from '../platform/http-errors.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { inTransaction, type Queryable } from '../database/database.ts';
import type { Intake } from '../intake/intake.ts';
import { hasStoredCredentials } from '../credentials/credential-queries.ts';
import { createMissingFlows, listFlowsForUser, lockFlowsForUser, saveFlowConfiguration } from '../flows/flow-queries.ts';
import { webhookUrlFor } from '../flows/webhook-url.ts';
import { flowTypes } from '../../shared/flows/flow-types.ts';
import { type SandboxStatus } from '../../shared/sandbox/sandbox-schemas.ts';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import { endSandboxPeriod, ensureSandboxAccount, findSandboxAccount, hasOpenSandboxPeriod, listSandboxPeriods, listSandboxProfiles, saveSandboxOpenaiKey, startSandboxPeriod } from './sandbox-queries.ts';
import { sendSampleActivity } from './sample-activity.ts';
import { sandboxKeyContext } from './sandbox-credentials.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

/**
 * The sandbox under /api/sandbox, in the signed-in context: everything is keyed by
 * `request.user.id`, so an owner only ever starts, reads or leaves their own sandbox.
 */
export const sandboxRoutes: FastifyPluginAsyncZod<{ intake: Intake }> = async (app, options) => {
  const { pool } = app.database;

  async function statusOf(db: Queryable, userId: string): Promise<SandboxStatus> {
    const [account, periods, saved] = await Promise.all([findSandboxAccount(db, userId), listSandboxPeriods(db, userId), hasStoredCredentials(db, userId)]);
    return {
      active: periods.some((period) => period.endedAt === null),
      periods: periods.map((period) => ({ startedAt: period.startedAt.toISOString(), endedAt: period.endedAt?.toISOString() ?? null })),
      tried: account !== null,
      writer: account?.encryptedOpenaiApiKey || saved ? 'openai' : 'sample',
      sandboxOpenaiKeySet: Boolean(account?.encryptedOpenaiApiKey),
      canUseRealServices: saved,
    };
  }

  await registerEndpoint(app, endpoints.sandbox.status, { preHandler: rateLimited('read') }, async (request) => statusOf(pool, request.user.id));

  /**
   * Starts (or resumes) the sandbox: from now on the owner's events go to the sandbox
   * services. The owner's flows are made and switched on, so sample activity has
   * somewhere to go; a flow never saved gets its URL as saving it would give.
   */
  await registerEndpoint(app, endpoints.sandbox.start, { preHandler: rateLimited('write') }, async (request) => {
    const userId = request.user.id;
    await inTransaction(pool, async (client) => {
      await ensureSandboxAccount(client, userId);
      await lockFlowsForUser(client, userId);
      await createMissingFlows(client, userId);
      for (const flow of await listFlowsForUser(client, userId)) {
        if (flow.isActive) continue;
        await saveFlowConfiguration(client, userId, flow.flowType, {
          isActive: true,
          webhookUrl: flow.webhookUrl ?? webhookUrlFor(app.appConfig.publicUrl, flow.flowType, flow.webhookKey),
          assistants: flow.assistants,
          waitMinutes: null,
          klaviyoEventName: flow.klaviyoEventName,
          shopperCooldownHours: null,
          dailyGenerationCap: null,
          useFlexTier: null,
          reuseWindowHours: null,
          dailyBudgetUsd: { keep: true },
          overBudget: null,
          textRules: null,
          recommendations: null,
        });
      }
      await startSandboxPeriod(client, userId, app.clock.now());
    });
    request.log.info({ userId }, 'sandbox started');
    return statusOf(pool, userId);
  });

  /** "Use my real services": events from now on go to the owner's saved services. */
  await registerEndpoint(app, endpoints.sandbox.leave, { preHandler: rateLimited('write') }, async (request) => {
    const userId = request.user.id;
    if (!(await hasStoredCredentials(pool, userId))) throw new HttpError(apiErrorCodes.credentials_missing, sandboxMessages.needCredentials);
    if (!(await endSandboxPeriod(pool, userId, app.clock.now()))) throw new HttpError(apiErrorCodes.not_in_sandbox, sandboxMessages.notInSandbox);
    request.log.info({ userId }, 'sandbox left for the real services');
    return statusOf(pool, userId);
  });

  await registerEndpoint(app, endpoints.sandbox.activity, { preHandler: rateLimited('write') }, async (request) => {
    const userId = request.user.id;
    const account = await findSandboxAccount(pool, userId);
    if (!account || !(await hasOpenSandboxPeriod(pool, userId))) throw new HttpError(apiErrorCodes.not_in_sandbox, sandboxMessages.notInSandbox);
    const wanted = request.body.flowType ? [request.body.flowType] : [...flowTypes];
    const events = await sendSampleActivity({ pool, clock: app.clock, intake: options.intake, enqueue: (db, job) => app.engine.enqueue(db, job) }, account, wanted);
    return { events };
  });

  await registerEndpoint(app, endpoints.sandbox.profiles, { preHandler: rateLimited('read') }, async (request) => {
    const profiles = await listSandboxProfiles(pool, request.user.id);
    return { profiles: profiles.map((profile) => ({ ...profile, updatedAt: profile.updatedAt.toISOString() })) };
  });

  await registerEndpoint(app, endpoints.sandbox.openaiKey, { preHandler: rateLimited('write') }, async (request) => {
    const userId = request.user.id;
    if (!(await findSandboxAccount(pool, userId))) throw new HttpError(apiErrorCodes.no_sandbox, sandboxMessages.noSandboxAccount);
    const key = request.body.openaiApiKey;
    await saveSandboxOpenaiKey(pool, userId, key ? app.credentialCipher.encrypt(key, sandboxKeyContext(userId)) : null);
    return statusOf(pool, userId);
  });
};
