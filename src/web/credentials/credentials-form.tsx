import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { toast } from '../app/toast.ts';
import { ApiRequestError } from '../app/api-client.ts';
import { deferredResolver } from '../app/deferred-resolver.ts';
import { errorMessage } from '../auth/server-field-errors.ts';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { TextField } from '../ui/field.tsx';
import { Spinner } from '../ui/spinner.tsx';
import type { CredentialField, Credentials, CredentialsInput, MaskedCredentials, ShopifyAuthMethod } from '../../shared/credentials/credential-schemas.ts';
import { normalizeShopDomain } from '../../shared/credentials/shop-domain.ts';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { connectionMessages } from '../../shared/connections/connection-messages.ts';
import type { ConnectionsResponse } from '../../shared/connections/connection-schemas.ts';
import { requestMessages } from '../../shared/messages.ts';
import { useOpenAiModels, useSaveCredentials } from './use-credentials.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { startErrorOf, useConnections, useStartShopifyConnection, type ConnectionReturnPage } from '../connections/use-connections.ts';
import { KlaviyoConnectionStatus, ShopifyConnectionStatus } from '../connections/connection-status.tsx';
import { ConnectKlaviyoButton } from '../connections/klaviyo-connect-card.tsx';
import { KeysDisclosure } from '../connections/keys-disclosure.tsx';
import { shopDomainChecks } from '../connections/shop-domain-checks.ts';

/**
 * The shared credentials schema checks the form, fetched once the form is first focused:
 * the settings page, which shows the form only on "Update Credentials", loads without zod.
 */
const credentialsChecks = deferredResolver<CredentialsInput, Credentials>(async () => (await import('./credentials-checks.ts')).credentialsResolver);

/** Both the form's checks and the domain's, which "Connect Shopify" needs before the form is sent. */
const preloadChecks = () => {
  credentialsChecks.preload();
  shopDomainChecks.preload();
};

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

/** The fields only one way of connecting to Shopify uses (the one-click connection uses none). */
const methodFields: Record<ShopifyAuthMethod, CredentialField[]> = {
  access_token: ['shopifyAccessToken'],
  client_credentials: ['shopifyClientId', 'shopifyClientSecret'],
  oauth: [],
};

/** Every Shopify key field: none of them is sent with the one-click connection. */
const shopifyKeyFields = ['shopifyAccessToken', 'shopifyClientId', 'shopifyClientSecret', 'shopifySigningSecret'] as const;

/** How the owner chose to connect a service that the deployment connects in one click. */
type Way = 'oauth' | 'keys';
interface Ways {
  shopify: Way;
  klaviyo: Way;
}

/** A masked stored secret goes back as is, and the server keeps the stored value. */
function storedValue(masked: string | null | undefined): string {
  return masked && masked !== credentialMessages.undecryptable ? masked : '';
}

/** The way of connecting with keys the owner had, or the one new owners are pointed to. */
function keysMethodOf(stored: MaskedCredentials | null): Exclude<ShopifyAuthMethod, 'oauth'> {
  // New Admin API custom apps cannot be created since 2026-01-01: Dev Dashboard apps are the norm.
  return stored && stored.shopifyAuthMethod !== 'oauth' ? stored.shopifyAuthMethod : 'client_credentials';
}

/**
 * A service the deployment connects in one click leads with that, unless the owner saved
 * keys for it; one connected so stays so (also when the operator since removed the app).
 */
function initialWays(stored: MaskedCredentials | null, oneClick: { shopify: boolean; klaviyo: boolean }): Ways {
  return {
    shopify: oneClick.shopify && (!stored || stored.shopifyAuthMethod === 'oauth') ? 'oauth' : 'keys',
    klaviyo: oneClick.klaviyo && (!stored || stored.klaviyoAuthMethod === 'oauth') ? 'oauth' : 'keys',
  };
}

function initialValues(stored: MaskedCredentials | null, ways: Ways, connections: ConnectionsResponse, initialShop: string | null | undefined): CredentialsInput {
  const connectedShop = ways.shopify === 'oauth' && connections.shopify?.state === 'connected' ? connections.shopify.shopDomain : null;
  return {
    klaviyoAuthMethod: ways.klaviyo === 'oauth' ? 'oauth' : 'api_key',
    klaviyoApiKey: ways.klaviyo === 'oauth' ? '' : storedValue(stored?.klaviyoApiKey),
    openaiApiKey: storedValue(stored?.openaiApiKey),
    openaiModel: stored?.openaiModel ?? '',
    shopifyDomain: connectedShop ?? (stored?.shopifyDomain || initialShop || ''),
    shopifyAuthMethod: ways.shopify === 'oauth' ? 'oauth' : keysMethodOf(stored),
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

interface CredentialsFormProps {
  stored: MaskedCredentials | null;
  submitLabel: string;
  onSaved: (result: { firstSave: boolean }) => void;
  onCancel?: () => void;
  /** Where Shopify's or Klaviyo's consent page sends the owner back (the setup screen unless told). */
  returnTo?: ConnectionReturnPage;
  /** A shop named by Shopify's install link, for the domain field. */
  initialShop?: string | null | undefined;
  /**
   * The page shows the connections in full above the form (API Settings): the form then
   * says only how each is connected, and leaves scopes, renewals and reconnecting to it.
   */
  connectionsShownAbove?: boolean;
}

/**
 * The credentials of docs/product/specification.md §3, as docs/product/product-rules.md
 * §1 changes them: Klaviyo key, OpenAI key and model, and the Shopify store with a token
 * or a Dev Dashboard app. The server checks every value live before saving; its per-field
 * answers appear under the fields.
 *
 * Where the deployment connects Shopify or Klaviyo in one click
 * (docs/decisions/0048-connect-by-oauth.md), that service leads with "Connect Shopify" or
 * "Connect Klaviyo" and today's key fields are one step away; a service connected so
 * shows its connection instead of key fields and is saved as `oauth`. The form waits for
 * the connections to know which it offers.
 */
export function CredentialsForm(props: CredentialsFormProps) {
  const connections = useConnections();
  if (!connections.data) {
    if (!connections.isError) return <Spinner label={connectionMessages.loading} />;
    return (
      <div className="space-y-3">
        <Alert tone="error" title={connectionMessages.loadFailed}>
          {connections.error instanceof ApiRequestError ? connections.error.message : null}
        </Alert>
        <Button variant="secondary" onClick={() => void connections.refetch()}>
          {connectionMessages.retry}
        </Button>
      </div>
    );
  }
  return <CredentialsFormFields {...props} connections={connections.data} />;
}

function CredentialsFormFields({
  stored,
  submitLabel,
  onSaved,
  onCancel,
  returnTo = '/setup',
  initialShop,
  connectionsShownAbove = false,
  connections,
}: CredentialsFormProps & { connections: ConnectionsResponse }) {
  const oneClick = {
    shopify: connections.offered.shopify || stored?.shopifyAuthMethod === 'oauth',
    klaviyo: connections.offered.klaviyo || stored?.klaviyoAuthMethod === 'oauth',
  };
  const [ways, setWays] = useState<Ways>(() => initialWays(stored, oneClick));
  const form = useForm<CredentialsInput, unknown, Credentials>({
    resolver: credentialsChecks.resolver,
    defaultValues: initialValues(stored, ways, connections, initialShop),
  });
  const save = useSaveCredentials();
  const startShopify = useStartShopifyConnection();
  const errors = form.formState.errors;
  const method = useWatch({ control: form.control, name: 'shopifyAuthMethod' }) ?? 'client_credentials';
  const typedKey = useWatch({ control: form.control, name: 'openaiApiKey' }) ?? '';
  const ids = { models: useId(), methodLegend: useId(), shopifyKeys: useId(), klaviyoKey: useId() };

  // The key whose models are offered: the stored one when editing, then each key typed
  // (looked up when the field is left, so a half-typed key costs no check).
  const [modelKey, setModelKey] = useState(() => storedValue(stored?.openaiApiKey));
  const models = useOpenAiModels(modelKey);
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

  const shopifyConnection = connections.shopify;
  const shopifyConnected = shopifyConnection?.state === 'connected' ? shopifyConnection : null;

  /** One click or keys for Shopify: the keys come back as stored; the one-click choice sends none. */
  const chooseShopifyWay = (next: Way) => {
    setWays((current) => ({ ...current, shopify: next }));
    form.clearErrors(['shopifyDomain', ...shopifyKeyFields]);
    if (next === 'keys') {
      form.setValue('shopifyAuthMethod', keysMethodOf(stored));
      for (const field of shopifyKeyFields) form.resetField(field);
    } else {
      form.setValue('shopifyAuthMethod', 'oauth');
      for (const field of shopifyKeyFields) form.setValue(field, '');
      if (shopifyConnected) form.setValue('shopifyDomain', shopifyConnected.shopDomain);
    }
  };

  /** One click or a private key for Klaviyo. */
  const chooseKlaviyoWay = (next: Way) => {
    setWays((current) => ({ ...current, klaviyo: next }));
    form.clearErrors('klaviyoApiKey');
    if (next === 'keys') {
      form.setValue('klaviyoAuthMethod', 'api_key');
      form.resetField('klaviyoApiKey');
    } else {
      form.setValue('klaviyoAuthMethod', 'oauth');
      form.setValue('klaviyoApiKey', '');
    }
  };

  /** A service left on its one-click choice must be connected before saving (the server checks it too). */
  const notConnectedYet = (values: CredentialsInput): Array<[CredentialField, string]> => {
    const problems: Array<[CredentialField, string]> = [];
    if (ways.shopify === 'oauth' && !(shopifyConnected && shopifyConnected.shopDomain === normalizeShopDomain(values.shopifyDomain ?? ''))) {
      problems.push(['shopifyDomain', connectionMessages.shopifyNotConnectedYet]);
    }
    if (ways.klaviyo === 'oauth' && connections.klaviyo?.state !== 'connected') problems.push(['klaviyoApiKey', connectionMessages.klaviyoNotConnectedYet]);
    return problems;
  };

  const submit = form.handleSubmit(
    async (values) => {
      const problems = notConnectedYet(values);
      if (problems.length > 0) {
        problems.forEach(([field, message], index) => form.setError(field, { type: 'connection', message }, { shouldFocus: index === 0 }));
        return;
      }
      // The one-click choice sends no key for that service.
      const sent: Credentials = {
        ...values,
        ...(values.shopifyAuthMethod === 'oauth' ? { shopifyAccessToken: '', shopifyClientId: '', shopifyClientSecret: '', shopifySigningSecret: '' } : {}),
        ...(values.klaviyoAuthMethod === 'oauth' ? { klaviyoApiKey: '' } : {}),
      };
      try {
        const result = await save.mutateAsync(sent);
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
    },
    () => {
      for (const [field, message] of notConnectedYet(form.getValues())) form.setError(field, { type: 'connection', message });
    },
  );
  // Only the checks can fail here (their chunk could not be fetched); the rest is caught above.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    submit(event).catch((error: unknown) => toast.error(errorMessage(error, requestMessages.unreachable)));
  };

  /** "Connect Shopify" from the form: the domain is checked with the shared schema before anything is sent. */
  const connectShopify = async () => {
    const shopifyDomainSchema = await shopDomainChecks.get().catch((error: unknown) => {
      form.setError('shopifyDomain', { type: 'connection', message: errorMessage(error, requestMessages.unreachable) }, { shouldFocus: true });
      return null;
    });
    if (!shopifyDomainSchema) return;
    const parsed = shopifyDomainSchema.safeParse(form.getValues('shopifyDomain') ?? '');
    if (!parsed.success) {
      form.setError('shopifyDomain', { type: 'connection', message: parsed.error.issues[0]?.message ?? '' }, { shouldFocus: true });
      return;
    }
    form.clearErrors('shopifyDomain');
    startShopify.mutate(
      { shop: parsed.data, returnTo },
      {
        onError: (error) => {
          const { field } = startErrorOf(error, 'shopify');
          if (field) form.setError('shopifyDomain', { type: 'server', message: field }, { shouldFocus: true });
        },
      },
    );
  };
  const shopifyStartFailure = startShopify.error ? startErrorOf(startShopify.error, 'shopify') : null;

  const secretProps = { type: 'password', autoComplete: 'off', spellCheck: false } as const;
  const openaiKey = form.register('openaiApiKey');
  const modelHint = models.isFetching
    ? 'Looking up the models this key can use…'
    : models.data
      ? `${models.data.length} models available for this key. Pick one or type a model id.`
      : 'The model that writes your content, such as gpt-5-mini. Enter your OpenAI key to see the models it can use.';

  const legend = (name: string) => <legend className="text-base font-semibold text-slate-900">{name}</legend>;
  /** An error of a field the section does not show (its one-click choice has none). */
  const sectionError = (message: string | undefined) => (message ? <Alert tone="error">{message}</Alert> : null);

  const klaviyoKeyField = (
    <TextField
      label="Klaviyo API Key"
      {...secretProps}
      placeholder="pk_…"
      hint={credentialMessages.klaviyoKeyHint}
      error={errors.klaviyoApiKey?.message}
      {...form.register('klaviyoApiKey')}
    />
  );

  const klaviyo = oneClick.klaviyo ? (
    <fieldset className="space-y-4" data-testid="klaviyo-credentials">
      {legend('Klaviyo')}
      {ways.klaviyo === 'oauth' ? (
        <div className="space-y-3">
          {connections.klaviyo ? (
            <KlaviyoConnectionStatus connection={connections.klaviyo} returnTo={returnTo} compact={connectionsShownAbove} />
          ) : (
            <>
              <p className="text-sm text-slate-700">{connectionMessages.klaviyoIntro}</p>
              <ConnectKlaviyoButton returnTo={returnTo} />
            </>
          )}
          {sectionError(errors.klaviyoApiKey?.message)}
        </div>
      ) : null}
      <KeysDisclosure
        label={connectionMessages.useKlaviyoKey}
        expanded={ways.klaviyo === 'keys'}
        controls={ids.klaviyoKey}
        onToggle={() => chooseKlaviyoWay(ways.klaviyo === 'keys' ? 'oauth' : 'keys')}
      />
      {ways.klaviyo === 'keys' ? (
        <div id={ids.klaviyoKey} className="space-y-4">
          {klaviyoKeyField}
        </div>
      ) : null}
    </fieldset>
  ) : (
    <fieldset className="space-y-4">
      {legend('Klaviyo')}
      {klaviyoKeyField}
    </fieldset>
  );

  const openai = (
    <fieldset className="space-y-4">
      {legend('OpenAI')}
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
  );

  const domainRegistration = form.register('shopifyDomain');
  const domainField = (connectOnEnter: boolean) => (
    <TextField
      label="Shopify Store Domain"
      autoComplete="off"
      spellCheck={false}
      placeholder="your-store.myshopify.com"
      hint="Your store's myshopify.com address (Settings → Domains in your Shopify admin)."
      error={errors.shopifyDomain?.message}
      {...domainRegistration}
      onKeyDown={
        connectOnEnter
          ? (event: KeyboardEvent<HTMLInputElement>) => {
              // Enter here connects the store; Save stays the button's.
              if (event.key !== 'Enter') return;
              event.preventDefault();
              void connectShopify();
            }
          : undefined
      }
    />
  );

  const shopifyKeys = (
    <>
      {domainField(false)}
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
    </>
  );

  const shopify = oneClick.shopify ? (
    <fieldset className="space-y-4" data-testid="shopify-credentials">
      {legend('Shopify')}
      {ways.shopify === 'oauth' ? (
        shopifyConnection ? (
          // Connected, or stopped: its status (a stopped one with "Reconnect Shopify").
          <div className="space-y-3">
            <ShopifyConnectionStatus connection={shopifyConnection} returnTo={returnTo} compact={connectionsShownAbove} />
            {sectionError(errors.shopifyDomain?.message)}
          </div>
        ) : (
          <div className="space-y-3">
            <p className="text-sm text-slate-700">{connectionMessages.shopifyIntro}</p>
            {domainField(true)}
            <Button busy={startShopify.busy} onClick={() => void connectShopify()}>
              {connectionMessages.connectShopify}
            </Button>
            {startShopify.leaving ? (
              <p role="status" className="text-sm text-slate-600">
                {connectionMessages.leavingFor('shopify')}
              </p>
            ) : null}
            {shopifyStartFailure && !shopifyStartFailure.field ? <Alert tone="error">{shopifyStartFailure.message}</Alert> : null}
          </div>
        )
      ) : null}
      <KeysDisclosure
        label={connectionMessages.useShopifyKeys}
        expanded={ways.shopify === 'keys'}
        controls={ids.shopifyKeys}
        onToggle={() => chooseShopifyWay(ways.shopify === 'keys' ? 'oauth' : 'keys')}
      />
      {ways.shopify === 'keys' ? (
        <div id={ids.shopifyKeys} className="space-y-4">
          {shopifyKeys}
        </div>
      ) : null}
    </fieldset>
  ) : (
    <fieldset className="space-y-4">
      {legend('Shopify')}
      {shopifyKeys}
    </fieldset>
  );

  return (
    <form onSubmit={onSubmit} onFocus={preloadChecks} noValidate className="space-y-6" aria-label="API credentials">
      {/* The services connected in one click lead; OpenAI, which has no such connection, follows. */}
      {oneClick.shopify ? (
        <>
          {shopify}
          {klaviyo}
          {openai}
        </>
      ) : (
        <>
          {klaviyo}
          {openai}
          {shopify}
        </>
      )}

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
