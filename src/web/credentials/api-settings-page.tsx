import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from '../app/toast.ts';
import { Lock } from 'lucide-react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import type { MaskedCredentials } from '../../shared/credentials/credential-schemas.ts';
import { DeferredPart } from '../app/deferred-part.tsx';
import { useEncryptionCheck, useMaskedCredentials } from './use-credentials.ts';
import { ConnectStoreCard } from '../shopify-connect/connect-store-card.tsx';
import { AttributionWindowCard } from '../attribution/attribution-window-card.tsx';
import { RetentionCard } from '../account/retention-card.tsx';
import { DeleteAccountCard } from '../account/delete-account-card.tsx';
import { pageRoutes } from '../../shared/routes.ts';
import { connectionMessages } from '../../shared/connections/connection-messages.ts';
import { ConnectionOutcome } from '../connections/connection-outcome.tsx';
import { ConnectionsCard } from '../connections/connections-card.tsx';
import { useReloadConnections } from '../connections/use-connections.ts';
import { PageTitle } from '../app/page-title.tsx';

type Row = { label: string; value: string | null; secret: boolean };

/**
 * The stored values as the server masked them; "Not set" where there is none. A service
 * connected in one click has no key: its row says how it is connected (the connections
 * card above says as whom).
 */
function rowsOf(credentials: MaskedCredentials | null): Row[] {
  const clientCredentials = credentials?.shopifyAuthMethod === 'client_credentials';
  const rows: Row[] = [
    credentials?.klaviyoAuthMethod === 'oauth'
      ? { label: connectionMessages.rows.klaviyo, value: connectionMessages.how.oauth, secret: false }
      : { label: 'Klaviyo API Key', value: credentials?.klaviyoApiKey ?? null, secret: true },
    { label: 'OpenAI API Key', value: credentials?.openaiApiKey ?? null, secret: true },
    { label: 'OpenAI Model', value: credentials?.openaiModel ?? null, secret: false },
    { label: 'Shopify Store Domain', value: credentials?.shopifyDomain ?? null, secret: false },
  ];
  if (credentials?.shopifyAuthMethod === 'oauth') {
    rows.push({ label: connectionMessages.rows.shopify, value: connectionMessages.how.oauth, secret: false });
  } else if (clientCredentials) {
    rows.push(
      { label: 'Shopify Client ID', value: credentials.shopifyClientId, secret: true },
      { label: 'Shopify Client Secret', value: credentials.shopifyClientSecret, secret: true },
      { label: 'Shopify Webhook Signing Secret', value: credentials.shopifySigningSecret ?? credentialMessages.sameAsClientSecret, secret: credentials.shopifySigningSecret !== null },
    );
  } else {
    rows.push(
      { label: 'Shopify Access Token', value: credentials?.shopifyAccessToken ?? null, secret: true },
      { label: 'Shopify Webhook Signing Secret', value: credentials?.shopifySigningSecret ?? null, secret: true },
    );
  }
  return rows;
}

const loadCredentialsForm = async () => (await import('./credentials-form.tsx')).CredentialsForm;

/**
 * docs/product/specification.md §2 "API Settings": the stored credentials masked, Update
 * Credentials opening the form, a spinner while loading, an error state with Retry, the
 * Encryption Warning banner when the self-check fails, and the footer.
 */
export function ApiSettingsPage() {
  const credentials = useMaskedCredentials();
  const encryption = useEncryptionCheck();
  const [editing, setEditing] = useState(false);
  const reloadConnections = useReloadConnections();
  // Shopify's install link sends a signed-out owner here with the shop named, after sign-in.
  const [searchParams] = useSearchParams();
  const [initialShop] = useState(() => searchParams.get('shop'));

  return (
    <div className="space-y-6">
      <PageTitle title="API Settings · Flowsmith" />
      <header className="space-y-1">
        <h1 className="text-2xl font-bold text-slate-900">API Settings</h1>
        <p className="text-slate-700">The keys Flowsmith uses to read your store, write with OpenAI and update Klaviyo profiles.</p>
      </header>

      {encryption.data && !encryption.data.working ? (
        <Alert tone="warning" title={credentialMessages.encryptionWarningTitle}>
          {credentialMessages.encryptionWarning}
        </Alert>
      ) : null}

      {/* Back from Shopify's or Klaviyo's consent page: whether it connected. */}
      <ConnectionOutcome />
      {/* Shown once the stored record is known: it says which way each service is connected. */}
      {credentials.isSuccess ? <ConnectionsCard stored={credentials.data} returnTo={pageRoutes.apiSettings} initialShop={initialShop} /> : null}

      <Card>
        {credentials.isPending ? (
          <Spinner label="Loading API credentials" />
        ) : credentials.isError ? (
          <div className="space-y-3">
            <Alert tone="error" title={credentialMessages.loadFailed}>
              {credentials.error.message}
            </Alert>
            <Button variant="secondary" onClick={() => void credentials.refetch()}>
              Retry
            </Button>
          </div>
        ) : editing ? (
          // The form and its checks are fetched when the owner asks to change the keys.
          <DeferredPart
            load={loadCredentialsForm}
            label="the credentials form"
            props={{
              stored: credentials.data,
              submitLabel: 'Save Credentials',
              returnTo: pageRoutes.apiSettings,
              initialShop,
              connectionsShownAbove: true,
              onCancel: () => setEditing(false),
              onSaved: ({ firstSave }: { firstSave: boolean }) => {
                toast.success(firstSave ? credentialMessages.setupCompleted : credentialMessages.updated);
                setEditing(false);
                void credentials.refetch();
                void reloadConnections();
              },
            }}
          />
        ) : (
          <div className="space-y-6">
            <dl className="divide-y divide-slate-100">
              {rowsOf(credentials.data).map((row) => (
                <div key={row.label} className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
                  <dt className="text-sm font-medium text-slate-700">{row.label}</dt>
                  <dd className={`text-sm sm:col-span-2 ${row.value ? 'text-slate-900' : 'italic text-slate-600'} ${row.secret && row.value ? 'break-all font-mono' : ''}`}>
                    {row.value ?? credentialMessages.notSet}
                  </dd>
                </div>
              ))}
            </dl>
            <Button onClick={() => setEditing(true)}>Update Credentials</Button>
          </div>
        )}
      </Card>

      <ConnectStoreCard />

      <AttributionWindowCard />
      <RetentionCard />

      <DeleteAccountCard />

      <footer className="flex items-center gap-2 text-sm text-slate-600">
        <Lock aria-hidden="true" className="h-4 w-4 shrink-0" />
        <p>{credentialMessages.footer}</p>
      </footer>
    </div>
  );
}
