import { useId, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useQuery } from '@tanstack/react-query';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from '../app/toast.ts';
import { ApiRequestError, retryWhenBusy } from '../app/api-client.ts';
import { Button } from '../ui/button.tsx';
import { TextField } from '../ui/field.tsx';
import {
  credentialsInputSchema,
  type CredentialField,
  type Credentials,
  type CredentialsInput,
  type MaskedCredentials,
  type ShopifyAuthMethod,
} from '../../shared/credentials/credential-schemas.ts';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { requestMessages } from '../../shared/messages.ts';
import { fetchOpenAiModels, useSaveCredentials } from './use-credentials.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

const formFields: readonly CredentialField[] = [
  'klaviyoApiKey',
  'openaiApiKey',
  'openaiModel',
  'shopifyDomain',
  'shopifyAuthMethod',
  'shopifyAccessToken',
  'shopifyClientId',
  'shopifyClientSecret',
  'shopifySigningSecret',
];

/** The fields only one way of connecting to Shopify uses. */
const methodFields: Record<ShopifyAuthMethod, CredentialField[]> = {
  access_token: ['shopifyAccessToken'],
  client_credentials: ['shopifyClientId', 'shopifyClientSecret'],
};

/** A masked stored secret goes back as is, and the server keeps the stored value. */
function storedValue(masked: string | null | undefined): string {
  return masked && masked !== credentialMessages.undecryptable ? masked : '';
}

function initialValues(stored: MaskedCredentials | null): CredentialsInput {
  return {
    klaviyoApiKey: storedValue(stored?.klaviyoApiKey),
    openaiApiKey: storedValue(stored?.openaiApiKey),
    openaiModel: stored?.openaiModel ?? '',
    shopifyDomain: stored?.shopifyDomain ?? '',
    // New Admin API custom apps cannot be created since 2026-01-01: Dev Dashboard apps are the norm.
    shopifyAuthMethod: stored?.shopifyAuthMethod ?? 'client_credentials',
    shopifyAccessToken: storedValue(stored?.shopifyAccessToken),
    shopifyClientId: storedValue(stored?.shopifyClientId),
    shopifyClientSecret: storedValue(stored?.shopifyClientSecret),
    shopifySigningSecret: storedValue(stored?.shopifySigningSecret),
  };
}

function toastFor(error: unknown): string {
  if (!(error instanceof ApiRequestError)) return credentialMessages.unexpected;
  if (error.body.error === apiErrorCodes.invalid_credentials) return credentialMessages.invalidKeys;
  if (error.body.error === apiErrorCodes.service_unreachable) return credentialMessages.servicesUnreachable;
  if (error.body.error === apiErrorCodes.rate_limited) return requestMessages.rateLimited;
  return credentialMessages.saveFailed;
}

/**
 * The four credentials of SPEC.md, as PRODUCT.md changes them: Klaviyo key, OpenAI key
 * and model, and the Shopify store with a token or a Dev Dashboard app. The server
 * checks every value live before saving; its per-field answers appear under the fields.
 */
export function CredentialsForm({
  stored,
  submitLabel,
  onSaved,
  onCancel,
}: {
  stored: MaskedCredentials | null;
  submitLabel: string;
  onSaved: (result: { firstSave: boolean }) => void;
  onCancel?: () => void;
}) {
  const form = useForm<CredentialsInput, unknown, Credentials>({
    resolver: zodResolver(credentialsInputSchema),
    defaultValues: initialValues(stored),
  });
  const save = useSaveCredentials();
  const errors = form.formState.errors;
  const method = useWatch({ control: form.control, name: 'shopifyAuthMethod' }) ?? 'client_credentials';
  const typedKey = useWatch({ control: form.control, name: 'openaiApiKey' }) ?? '';
  const ids = { models: useId(), methodLegend: useId() };

  // The key whose models are offered: the stored one when editing, then each key typed
  // (looked up when the field is left, so a half-typed key costs no check).
  const [modelKey, setModelKey] = useState(() => storedValue(stored?.openaiApiKey));
  const models = useQuery({
    queryKey: ['credentials', 'openai-models', modelKey],
    queryFn: () => fetchOpenAiModels(modelKey),
    enabled: modelKey.length >= 8,
    retry: retryWhenBusy,
    staleTime: Infinity,
  });
  const keyRefusal =
    models.error instanceof ApiRequestError && models.error.status === 400 && typedKey.trim() === modelKey ? models.error.body.fieldErrors?.openaiApiKey : undefined;

  const chooseMethod = (next: ShopifyAuthMethod) => {
    // The other way's values would be sent and refused for nothing: they are cleared.
    for (const field of methodFields[next === 'access_token' ? 'client_credentials' : 'access_token']) {
      form.setValue(field, '');
      form.clearErrors(field);
    }
    form.setValue('shopifyAuthMethod', next);
  };

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const result = await save.mutateAsync(values);
      onSaved({ firstSave: result.firstSave });
    } catch (error) {
      if (error instanceof ApiRequestError) {
        let first = true;
        for (const [field, message] of Object.entries(error.body.fieldErrors ?? {})) {
          if (!formFields.includes(field as CredentialField)) continue;
          form.setError(field as CredentialField, { type: 'server', message }, { shouldFocus: first });
          first = false;
        }
      }
      toast.error(toastFor(error));
    }
  });

  const secretProps = { type: 'password', autoComplete: 'off', spellCheck: false } as const;
  const openaiKey = form.register('openaiApiKey');
  const modelHint = models.isFetching
    ? 'Looking up the models this key can use…'
    : models.data
      ? `${models.data.length} models available for this key. Pick one or type a model id.`
      : 'The model that writes your content, such as gpt-5-mini. Enter your OpenAI key to see the models it can use.';

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label="API credentials">
      <fieldset className="space-y-4">
        <legend className="text-base font-semibold text-slate-900">Klaviyo</legend>
        <TextField
          label="Klaviyo API Key"
          {...secretProps}
          placeholder="pk_…"
          hint={credentialMessages.klaviyoKeyHint}
          error={errors.klaviyoApiKey?.message}
          {...form.register('klaviyoApiKey')}
        />
      </fieldset>

      <fieldset className="space-y-4">
        <legend className="text-base font-semibold text-slate-900">OpenAI</legend>
        <TextField
          label="OpenAI API Key"
          {...secretProps}
          placeholder="sk-…"
          error={errors.openaiApiKey?.message ?? keyRefusal}
          {...openaiKey}
          onBlur={(event) => {
            void openaiKey.onBlur(event);
            setModelKey(event.target.value.trim());
          }}
        />
        <TextField
          label="OpenAI Model"
          list={models.data ? ids.models : undefined}
          autoComplete="off"
          spellCheck={false}
          placeholder="gpt-5-mini"
          hint={modelHint}
          error={errors.openaiModel?.message}
          {...form.register('openaiModel')}
        />
        {models.data ? (
          <datalist id={ids.models}>
            {models.data.map((model) => (
              <option key={model} value={model} />
            ))}
          </datalist>
        ) : null}
      </fieldset>

      <fieldset className="space-y-4">
        <legend className="text-base font-semibold text-slate-900">Shopify</legend>
        <TextField
          label="Shopify Store Domain"
          autoComplete="off"
          spellCheck={false}
          placeholder="your-store.myshopify.com"
          hint="Your store's myshopify.com address (Settings → Domains in your Shopify admin)."
          error={errors.shopifyDomain?.message}
          {...form.register('shopifyDomain')}
        />
        <div role="radiogroup" aria-labelledby={ids.methodLegend} className="space-y-2">
          <p id={ids.methodLegend} className="text-sm font-medium text-slate-700">
            How Flowsmith connects to your store
          </p>
          {(
            [
              ['client_credentials', 'Dev Dashboard app (client ID and client secret)'],
              ['access_token', 'Admin API access token (shpat_…, from an older custom app)'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2 text-sm text-slate-800">
              <input
                type="radio"
                name="shopifyAuthMethod"
                value={value}
                checked={method === value}
                onChange={() => chooseMethod(value)}
                className="h-4 w-4 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
              />
              {label}
            </label>
          ))}
        </div>
        {method === 'access_token' ? (
          <TextField
            label="Shopify Access Token"
            {...secretProps}
            placeholder="shpat_…"
            hint={credentialMessages.shopifyScopesHint}
            error={errors.shopifyAccessToken?.message}
            {...form.register('shopifyAccessToken')}
          />
        ) : (
          <>
            <TextField
              label="Shopify Client ID"
              autoComplete="off"
              spellCheck={false}
              hint={`From your app in the Shopify Dev Dashboard (Settings → Credentials). Flowsmith obtains and renews the app's 24-hour tokens itself. ${credentialMessages.shopifyScopesHint}`}
              error={errors.shopifyClientId?.message}
              {...form.register('shopifyClientId')}
            />
            <TextField label="Shopify Client Secret" {...secretProps} error={errors.shopifyClientSecret?.message} {...form.register('shopifyClientSecret')} />
          </>
        )}
        <TextField
          label="Shopify Webhook Signing Secret"
          {...secretProps}
          hint={
            method === 'client_credentials'
              ? 'Optional. Leave blank when your app signs the webhooks (its client secret does). For webhooks made in the Shopify admin (Settings → Notifications → Webhooks), enter the key shown there.'
              : 'The app’s API secret key, or for webhooks made in the Shopify admin (Settings → Notifications → Webhooks) the key shown there.'
          }
          error={errors.shopifySigningSecret?.message}
          {...form.register('shopifySigningSecret')}
        />
      </fieldset>

      <div className="flex flex-wrap gap-3">
        <Button type="submit" busy={form.formState.isSubmitting}>
          {submitLabel}
        </Button>
        {onCancel ? (
          <Button variant="secondary" onClick={onCancel} disabled={form.formState.isSubmitting}>
            Cancel
          </Button>
        ) : null}
      </div>
      {form.formState.isSubmitting ? (
        <p role="status" className="text-sm text-slate-600">
          Checking your keys with Klaviyo, OpenAI and Shopify…
        </p>
      ) : null}
    </form>
  );
}
