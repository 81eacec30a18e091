import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';

/**
 * The sandbox ("try before connecting", docs/decisions/0026-sandbox.md) as browser and
 * server speak of it: whether the owner's events go to the built-in sample services, the
 * sandbox Klaviyo's profiles, and the sample shopper activity the owner can send.
 */
export const sandboxStatusSchema = z.object({
  /** The owner's events go to the sandbox services now. */
  active: z.boolean(),
  /** When the owner's events went to the sandbox: an event received in one of these is a sandbox event. */
  periods: z.array(z.object({ startedAt: z.string(), endedAt: z.string().nullable() })),
  /** The owner tried the sandbox at some time (its profiles can still be looked at). */
  tried: z.boolean(),
  /** Texts come from OpenAI with the owner's key (theirs for the sandbox, or their saved credentials); else the sample writer. */
  writer: z.enum(['sample', 'openai']),
  /** An OpenAI key was given for the sandbox alone. */
  sandboxOpenaiKeySet: z.boolean(),
  /** The owner's real credentials are saved, so switching to the real services can be done. */
  canUseRealServices: z.boolean(),
});
export type SandboxStatus = z.infer<typeof sandboxStatusSchema>;

export const sandboxProfileSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  properties: z.record(z.string(), z.unknown()),
  updatedAt: z.string(),
});
export type SandboxProfile = z.infer<typeof sandboxProfileSchema>;

export const sandboxProfilesSchema = z.object({ profiles: z.array(sandboxProfileSchema) });

/** Sample shopper activity for one flow, or for all four when no flow is named. */
export const sampleActivityRequestSchema = z.object({ flowType: flowTypeSchema.optional() });
export type SampleActivityRequest = z.infer<typeof sampleActivityRequestSchema>;

export const sampleActivityResultSchema = z.object({
  events: z.array(z.object({ flowType: flowTypeSchema, eventId: z.string(), topic: z.string(), shopperEmail: z.string() })),
});
export type SampleActivityResult = z.infer<typeof sampleActivityResultSchema>;

/** An OpenAI key for the sandbox alone (null removes it): the sample shop then gets real texts. */
export const sandboxOpenaiKeyRequestSchema = z.object({ openaiApiKey: z.string().trim().min(1).max(300).nullable() });
