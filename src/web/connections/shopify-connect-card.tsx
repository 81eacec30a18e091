import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { TextField } from '../ui/field.tsx';
import { connectionMessages as m } from '../../shared/connections/connection-messages.ts';
import type { ShopifyConnectionStatus as ShopifyConnection } from '../../shared/connections/connection-schemas.ts';
import type { MaskedCredentials } from '../../shared/credentials/credential-schemas.ts';
import { requestMessages } from '../../shared/messages.ts';
import { errorMessage } from '../auth/server-field-errors.ts';
import { shopDomainChecks } from './shop-domain-checks.ts';
import { OtherConnectionLine, ShopifyConnectionStatus } from './connection-status.tsx';
import { startErrorOf, useStartShopifyConnection, type ConnectionReturnPage } from './use-connections.ts';

/** Whether the owner's Shopify goes through the one-click connection (before setup, any connection counts). */
export function shopifyUsesConnection(connection: ShopifyConnection | null, stored: MaskedCredentials | null): boolean {
  return connection !== null && (stored === null || stored.shopifyAuthMethod === 'oauth');
}

/**
 * Shopify in the connections list: how the store is connected now, and, unless it is
 * connected in one click, the shop's domain and "Connect Shopify" (checked with the
 * shared domain schema before anything is sent). A stopped connection shows its problem
 * and "Reconnect Shopify" instead.
 */
export function ShopifyConnectCard({
  connection,
  stored,
  offered,
  returnTo,
  initialShop,
}: {
  connection: ShopifyConnection | null;
  stored: MaskedCredentials | null;
  offered: boolean;
  returnTo: ConnectionReturnPage;
  initialShop?: string | null | undefined;
}) {
  const headingId = useId();
  const used = shopifyUsesConnection(connection, stored) ? connection : null;
  const withKeys = stored && stored.shopifyAuthMethod !== 'oauth' ? stored.shopifyDomain : null;
  return (
    <section aria-labelledby={headingId} className="space-y-3" data-testid="shopify-connection">
      <h3 id={headingId} className="text-base font-semibold text-slate-900">
        {m.serviceName('shopify')}
      </h3>
      {used ? <ShopifyConnectionStatus connection={used} returnTo={returnTo} /> : <OtherConnectionLine text={withKeys ? m.shopifyWithKeys(withKeys) : null} />}
      {offered && !used ? <ShopifyConnectForm returnTo={returnTo} initialShop={initialShop || withKeys || connection?.shopDomain || ''} /> : null}
    </section>
  );
}

function ShopifyConnectForm({ returnTo, initialShop }: { returnTo: ConnectionReturnPage; initialShop: string }) {
  const start = useStartShopifyConnection();
  const [shop, setShop] = useState(initialShop);
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  const serverError = start.error ? startErrorOf(start.error, 'shopify') : null;

  const connect = async () => {
    const shopifyDomainSchema = await shopDomainChecks.get().catch((error: unknown) => {
      setFieldError(errorMessage(error, requestMessages.unreachable));
      return null;
    });
    if (!shopifyDomainSchema) return;
    const parsed = shopifyDomainSchema.safeParse(shop);
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message);
      return;
    }
    setFieldError(undefined);
    start.mutate({ shop: parsed.data, returnTo });
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void connect();
  };

  return (
    <form noValidate onSubmit={onSubmit} onFocus={shopDomainChecks.preload} className="space-y-3" aria-label={m.connectShopify}>
      <p className="text-sm text-slate-700">{m.shopifyIntro}</p>
      <div className="max-w-sm">
        <TextField
          label={m.shopDomainLabel}
          autoComplete="off"
          spellCheck={false}
          placeholder={m.shopDomainPlaceholder}
          hint={m.shopDomainHint}
          value={shop}
          onChange={(event) => setShop(event.target.value)}
          error={fieldError ?? serverError?.field ?? undefined}
        />
      </div>
      <Button type="submit" busy={start.busy}>
        {m.connectShopify}
      </Button>
      {start.leaving ? (
        <p role="status" className="text-sm text-slate-600">
          {m.leavingFor('shopify')}
        </p>
      ) : null}
      {serverError && !serverError.field ? <Alert tone="error">{serverError.message}</Alert> : null}
    </form>
  );
}
