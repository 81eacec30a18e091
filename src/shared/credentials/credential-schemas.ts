import { z } from 'zod';
import { credentialValidationMessages as m } from './credential-messages.ts';
import { normalizeShopDomain } from './shop-domain.ts';

/**
 * The contract between the credentials form and the credentials API. The form validates
 * with these schemas before sending and the server validates again, so both show the
 * same message. A secret field may also carry the masked form of the stored value (as
 * the update form shows it): the server then keeps the stored value.
 */
export const MAX_SECRET_LENGTH = 500;
export const MAX_MODEL_LENGTH = 100;

/**
 * Dev Dashboard apps use the client-credentials grant; older custom apps have a fixed
 * `shpat_` token; `oauth` is the deployment's own app, connected with "Connect Shopify"
 * (its tokens are kept by the connections feature, not entered here).
 */
export const shopifyAuthMethods = ['access_token', 'client_credentials', 'oauth'] as const;
export const shopifyAuthMethodSchema = z.enum(shopifyAuthMethods);
export type ShopifyAuthMethod = z.infer<typeof shopifyAuthMethodSchema>;

/** A private API key, or the connection made with "Connect Klaviyo" (never both: Klaviyo asks an integration not to mix them). */
export const klaviyoAuthMethods = ['api_key', 'oauth'] as const;
export const klaviyoAuthMethodSchema = z.enum(klaviyoAuthMethods);
export type KlaviyoAuthMethod = z.infer<typeof klaviyoAuthMethodSchema>;

// Keys travel in HTTP headers: printable ASCII without spaces, or the request could not be made.
const oneWord = /^[\x21-\x7e]*$/;
const modelName = /^[A-Za-z0-9._:-]+$/;
const myshopifyDomain = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

function secretField(label: string, required?: string) {
  const base = z.string().trim().max(MAX_SECRET_LENGTH, m.tooLong(label, MAX_SECRET_LENGTH)).regex(oneWord, m.oneWord(label));
  return required ? base.min(1, required) : base.default('');
}

/** A model id; assistant and stored-prompt ids get a message saying why they no longer work. */
export const openaiModelSchema = z
  .string()
  .trim()
  .min(1, m.openaiModelRequired)
  .max(MAX_MODEL_LENGTH, m.tooLong('OpenAI model', MAX_MODEL_LENGTH))
  .superRefine((value, context) => {
    if (value.startsWith('asst_')) context.addIssue({ code: 'custom', message: m.assistantIdRetired, abort: true });
    else if (value.startsWith('pmpt_')) context.addIssue({ code: 'custom', message: m.storedPromptRetired, abort: true });
    else if (!modelName.test(value)) context.addIssue({ code: 'custom', message: m.openaiModelInvalid });
  });

export const shopifyDomainSchema = z
  .string()
  .trim()
  .min(1, m.shopifyDomainRequired)
  .transform(normalizeShopDomain)
  .refine((value) => myshopifyDomain.test(value) && value.length <= 255, m.shopifyDomainInvalid);

export const credentialsInputSchema = z
  .object({
    klaviyoAuthMethod: klaviyoAuthMethodSchema.default('api_key'),
    /** Blank when Klaviyo is connected by OAuth. */
    klaviyoApiKey: secretField('Klaviyo API Key'),
    openaiApiKey: secretField('OpenAI API Key', m.openaiApiKeyRequired),
    openaiModel: openaiModelSchema,
    shopifyDomain: shopifyDomainSchema,
    shopifyAuthMethod: shopifyAuthMethodSchema,
    shopifyAccessToken: secretField('Shopify Access Token'),
    shopifyClientId: secretField('Shopify client ID'),
    shopifyClientSecret: secretField('Shopify client secret'),
    /** Blank with client credentials: the client secret signs the webhooks. */
    shopifySigningSecret: secretField('Shopify webhook signing secret'),
  })
  .superRefine((input, context) => {
    const require = (field: keyof typeof input, message: string) => {
      if (!input[field]) context.addIssue({ code: 'custom', path: [field], message });
    };
    if (input.klaviyoAuthMethod === 'api_key') require('klaviyoApiKey', m.klaviyoApiKeyRequired);
    if (input.shopifyAuthMethod === 'access_token') {
      require('shopifyAccessToken', m.shopifyAccessTokenRequired);
      require('shopifySigningSecret', m.shopifySigningSecretRequired);
    } else if (input.shopifyAuthMethod === 'client_credentials') {
      require('shopifyClientId', m.shopifyClientIdRequired);
      require('shopifyClientSecret', m.shopifyClientSecretRequired);
    }
  });
export type CredentialsInput = z.input<typeof credentialsInputSchema>;
export type Credentials = z.output<typeof credentialsInputSchema>;
export type CredentialField = keyof Credentials;

/**
 * The stored record as the browser may see it: secrets masked on the server
 * (docs/product/specification.md §3), null when not set. The model and the shop domain
 * are not secrets.
 */
export const maskedCredentialsSchema = z.object({
  klaviyoAuthMethod: klaviyoAuthMethodSchema,
  klaviyoApiKey: z.string().nullable(),
  openaiApiKey: z.string().nullable(),
  openaiModel: z.string(),
  shopifyDomain: z.string(),
  shopifyAuthMethod: shopifyAuthMethodSchema,
  shopifyAccessToken: z.string().nullable(),
  shopifyClientId: z.string().nullable(),
  shopifyClientSecret: z.string().nullable(),
  /** Null with client credentials when the client secret signs the webhooks. */
  shopifySigningSecret: z.string().nullable(),
  updatedAt: z.string(),
});
export type MaskedCredentials = z.output<typeof maskedCredentialsSchema>;

export const credentialsResponseSchema = z.object({ credentials: maskedCredentialsSchema.nullable() });
export const saveCredentialsResponseSchema = z.object({ credentials: maskedCredentialsSchema, firstSave: z.boolean() });
export const setupStatusResponseSchema = z.object({ setupComplete: z.boolean() });
export const encryptionCheckResponseSchema = z.object({ working: z.boolean(), error: z.string().nullable() });
export type EncryptionCheck = z.output<typeof encryptionCheckResponseSchema>;
export const credentialCheckResponseSchema = z.object({
  valid: z.boolean(),
  /** True when a service could not be reached (timeout, 5xx, 429): not invalid, but not checked. */
  unreachable: z.boolean(),
  fieldErrors: z.record(z.string(), z.string()),
});
export type CredentialCheckResponse = z.output<typeof credentialCheckResponseSchema>;

export const openaiModelsRequestSchema = z.object({ openaiApiKey: secretField('OpenAI API Key', m.openaiApiKeyRequired) });
export const openaiModelsResponseSchema = z.object({ models: z.array(z.string()) });
