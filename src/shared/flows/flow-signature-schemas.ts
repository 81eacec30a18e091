import { z } from 'zod';

/**
 * Signatures of generic senders (docs/decisions/0012-generic-sender-signatures.md): the
 * API's view of a flow's secret (the header and its replay window are in flow-signing.ts).
 * The secret itself appears in exactly one answer, the one that created it
 * (`flowSignatureSecretResponseSchema`).
 */
export const flowSignatureSchema = z.object({
  required: z.boolean(),
  /**
   * The current secret masked (docs/product/specification.md §3); null while no signature
   * is required.
   */
  maskedSecret: z.string().nullable(),
  createdAt: z.string().nullable(),
  /** Until when the secret replaced last is still accepted; null when none is. */
  previousSecretValidUntil: z.string().nullable(),
});
export type FlowSignature = z.output<typeof flowSignatureSchema>;

export const flowSignatureResponseSchema = z.object({ signature: flowSignatureSchema });
export type FlowSignatureResponse = z.output<typeof flowSignatureResponseSchema>;

/** Turning the requirement on and generating a new secret: the only answers with the secret in full. */
export const flowSignatureSecretResponseSchema = z.object({ signature: flowSignatureSchema, secret: z.string() });
export type FlowSignatureSecretResponse = z.output<typeof flowSignatureSecretResponseSchema>;

export const notRequiredSignature: FlowSignature = { required: false, maskedSecret: null, createdAt: null, previousSecretValidUntil: null };
