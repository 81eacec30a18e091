import { useId, useState } from 'react';
import { AlertTriangle, CheckCircle2, KeyRound, MinusCircle, type LucideIcon } from 'lucide-react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { connectionMessages as m } from '../../shared/connections/connection-messages.ts';
import type { KlaviyoConnectionStatus, ShopifyConnectionStatus } from '../../shared/connections/connection-schemas.ts';
import {
  formatConnectionTime,
  missingScopes,
  startErrorOf,
  useDisconnectKlaviyo,
  useStartKlaviyoConnection,
  useStartShopifyConnection,
  type ConnectionReturnPage,
} from './use-connections.ts';
import { ApiRequestError } from '../app/api-client.ts';

const focusWhenShown = (element: HTMLElement | null) => element?.focus();

/** One line of a status: an icon (hidden from screen readers) before the words. */
function StatusHeadline({ Icon, className, children }: { Icon: LucideIcon; className: string; children: string }) {
  return (
    <p className={`flex items-center gap-1.5 text-sm font-medium ${className}`}>
      <Icon aria-hidden="true" className="h-4 w-4 shrink-0" />
      {children}
    </p>
  );
}

/** How a service not connected in one click is connected: with keys, or not at all. */
export function OtherConnectionLine({ text }: { text: string | null }) {
  return text ? (
    <StatusHeadline Icon={KeyRound} className="text-slate-800">
      {text}
    </StatusHeadline>
  ) : (
    <StatusHeadline Icon={MinusCircle} className="text-slate-700">
      {m.notConnected}
    </StatusHeadline>
  );
}

/**
 * A working one-click connection: as whom, how, with which scopes, and when its token was
 * last renewed; `compact` keeps as whom, how and any missing scope (for a form under the
 * connections card, which has the rest).
 */
function ConnectedDetails({
  headline,
  scopes,
  missing,
  connectedAt,
  renewedAt,
  compact,
}: {
  headline: string;
  scopes: string[];
  missing: string[];
  connectedAt: string;
  renewedAt: string | null;
  compact: boolean;
}) {
  return (
    <div className="space-y-1">
      <StatusHeadline Icon={CheckCircle2} className="text-green-800">
        {headline}
      </StatusHeadline>
      <ul className="space-y-0.5 text-sm text-slate-700">
        <li>{m.how.oauth}</li>
        {compact ? null : <li className="break-words">{m.scopes(scopes)}</li>}
        {missing.length > 0 ? (
          <li className="flex items-start gap-1.5 text-amber-900">
            <AlertTriangle aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0" />
            {m.scopesMissing(missing)}
          </li>
        ) : null}
        {compact ? null : <li>{m.connectedOn(formatConnectionTime(connectedAt))}</li>}
        {compact ? null : <li>{renewedAt ? m.renewedAt(formatConnectionTime(renewedAt)) : m.notRenewed}</li>}
      </ul>
    </div>
  );
}

/** A stopped connection in a compact status: its title alone (the connections card has its problem and the reconnect button). */
function StoppedHeadline({ title }: { title: string }) {
  return (
    <StatusHeadline Icon={AlertTriangle} className="text-amber-900">
      {title}
    </StatusHeadline>
  );
}

/** The error of a start that failed, under its button. */
function StartProblem({ error, service }: { error: unknown; service: 'shopify' | 'klaviyo' }) {
  if (!error) return null;
  const { field, message } = startErrorOf(error, service);
  return <Alert tone="error">{field ?? message}</Alert>;
}

/**
 * The Shopify connection made in one click: connected (to which shop, scopes, renewal),
 * or stopped (uninstalled, renewal refused) with its problem and "Reconnect Shopify".
 */
export function ShopifyConnectionStatus({
  connection,
  returnTo,
  compact = false,
}: {
  connection: ShopifyConnectionStatus;
  returnTo: ConnectionReturnPage;
  compact?: boolean;
}) {
  const start = useStartShopifyConnection();
  if (connection.state === 'connected') {
    return (
      <ConnectedDetails
        headline={m.shopifyConnectedTo(connection.shopName, connection.shopDomain)}
        scopes={connection.scopes}
        missing={missingScopes('shopify', connection)}
        connectedAt={connection.connectedAt}
        renewedAt={connection.renewedAt}
        compact={compact}
      />
    );
  }
  if (compact) return <StoppedHeadline title={m.shopifyStoppedTitle} />;
  const problem = connection.problem ?? (connection.state === 'uninstalled' ? m.shopifyUninstalled(connection.shopDomain) : m.shopifyRenewalRefused(connection.shopDomain));
  return (
    <div className="space-y-3">
      <Alert tone="warning" title={m.shopifyStoppedTitle}>
        <p>{problem}</p>
        <p className="mt-1">{m.shopifyStopped}</p>
      </Alert>
      <Button busy={start.busy} onClick={() => start.mutate({ shop: connection.shopDomain, returnTo })}>
        {m.reconnectShopify}
      </Button>
      {start.leaving ? <p role="status" className="text-sm text-slate-600">{m.leavingFor('shopify')}</p> : null}
      <StartProblem error={start.error} service="shopify" />
    </div>
  );
}

/**
 * The Klaviyo connection made in one click: connected (as which account, scopes, renewal),
 * or its renewal refused with the problem and "Reconnect Klaviyo"; with `canDisconnect`,
 * also Disconnect, which asks first.
 */
export function KlaviyoConnectionStatus({
  connection,
  returnTo,
  canDisconnect = false,
  compact = false,
}: {
  connection: KlaviyoConnectionStatus;
  returnTo: ConnectionReturnPage;
  canDisconnect?: boolean;
  compact?: boolean;
}) {
  const start = useStartKlaviyoConnection();
  return (
    <div className="space-y-3">
      {connection.state === 'connected' ? (
        <ConnectedDetails
          headline={m.klaviyoConnectedAs(connection.accountName, connection.accountId)}
          scopes={connection.scopes}
          missing={missingScopes('klaviyo', connection)}
          connectedAt={connection.connectedAt}
          renewedAt={connection.renewedAt}
          compact={compact}
        />
      ) : compact ? (
        <StoppedHeadline title={m.klaviyoStoppedTitle} />
      ) : (
        <>
          <Alert tone="warning" title={m.klaviyoStoppedTitle}>
            <p>{connection.problem ?? m.klaviyoRenewalRefused}</p>
            <p className="mt-1">{m.klaviyoStopped}</p>
          </Alert>
          <Button busy={start.busy} onClick={() => start.mutate({ returnTo })}>
            {m.reconnectKlaviyo}
          </Button>
          {start.leaving ? <p role="status" className="text-sm text-slate-600">{m.leavingFor('klaviyo')}</p> : null}
          <StartProblem error={start.error} service="klaviyo" />
        </>
      )}
      {canDisconnect ? <DisconnectKlaviyo /> : null}
    </div>
  );
}

/** Disconnect, then a confirmation saying what stops, then the disconnection. */
function DisconnectKlaviyo() {
  const disconnect = useDisconnectKlaviyo();
  const [confirming, setConfirming] = useState(false);
  const titleId = useId();
  const explanationId = useId();

  const confirm = () =>
    disconnect.mutate(undefined, { onSuccess: () => setConfirming(false) });

  if (!confirming) {
    return (
      <Button variant="secondary" onClick={() => setConfirming(true)}>
        {m.disconnect}
      </Button>
    );
  }
  return (
    <div
      ref={focusWhenShown}
      tabIndex={-1}
      role="group"
      aria-labelledby={titleId}
      aria-describedby={explanationId}
      className="space-y-3 rounded-md border border-red-200 bg-red-50 p-3 focus:outline-none"
    >
      <p id={titleId} className="text-sm font-semibold text-red-900">
        {m.disconnectTitle}
      </p>
      <p id={explanationId} className="text-sm text-red-900">
        {m.disconnectExplanation}
      </p>
      {disconnect.isError ? (
        <Alert tone="error" title={m.disconnectFailed}>
          {disconnect.error instanceof ApiRequestError ? disconnect.error.message : null}
        </Alert>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button variant="danger" busy={disconnect.isPending} onClick={confirm}>
          {m.disconnectConfirm}
        </Button>
        <Button variant="secondary" disabled={disconnect.isPending} onClick={() => setConfirming(false)}>
          {m.cancel}
        </Button>
      </div>
    </div>
  );
}
