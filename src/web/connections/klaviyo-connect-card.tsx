import { useId } from 'react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { connectionMessages as m } from '../../shared/connections/connection-messages.ts';
import type { KlaviyoConnectionStatus as KlaviyoConnection } from '../../shared/connections/connection-schemas.ts';
import type { MaskedCredentials } from '../../shared/credentials/credential-schemas.ts';
import { KlaviyoConnectionStatus, OtherConnectionLine } from './connection-status.tsx';
import { startErrorOf, useStartKlaviyoConnection, type ConnectionReturnPage } from './use-connections.ts';

/** Whether the owner's Klaviyo goes through the one-click connection (before setup, any connection counts). */
export function klaviyoUsesConnection(connection: KlaviyoConnection | null, stored: MaskedCredentials | null): boolean {
  return connection !== null && (stored === null || stored.klaviyoAuthMethod === 'oauth');
}

/** "Connect Klaviyo", its busy state while the browser leaves for Klaviyo, and a start that failed. */
export function ConnectKlaviyoButton({ returnTo }: { returnTo: ConnectionReturnPage }) {
  const start = useStartKlaviyoConnection();
  const failure = start.error ? startErrorOf(start.error, 'klaviyo') : null;
  return (
    <div className="space-y-3">
      <Button busy={start.busy} onClick={() => start.mutate({ returnTo })}>
        {m.connectKlaviyo}
      </Button>
      {start.leaving ? (
        <p role="status" className="text-sm text-slate-600">
          {m.leavingFor('klaviyo')}
        </p>
      ) : null}
      {failure ? <Alert tone="error">{failure.field ?? failure.message}</Alert> : null}
    </div>
  );
}

/**
 * Klaviyo in the connections list: how it is connected now (as which account, or with a
 * private key), Disconnect for a one-click connection, and "Connect Klaviyo" otherwise.
 */
export function KlaviyoConnectCard({
  connection,
  stored,
  offered,
  returnTo,
}: {
  connection: KlaviyoConnection | null;
  stored: MaskedCredentials | null;
  offered: boolean;
  returnTo: ConnectionReturnPage;
}) {
  const headingId = useId();
  const used = klaviyoUsesConnection(connection, stored) ? connection : null;
  const withKey = stored?.klaviyoAuthMethod === 'api_key' && stored.klaviyoApiKey !== null;
  return (
    <section aria-labelledby={headingId} className="space-y-3" data-testid="klaviyo-connection">
      <h3 id={headingId} className="text-base font-semibold text-slate-900">
        {m.serviceName('klaviyo')}
      </h3>
      {used ? (
        <KlaviyoConnectionStatus connection={used} returnTo={returnTo} canDisconnect />
      ) : (
        <>
          <OtherConnectionLine text={withKey ? m.how.klaviyoKey : null} />
          {offered ? (
            <>
              <p className="text-sm text-slate-700">{m.klaviyoIntro}</p>
              <ConnectKlaviyoButton returnTo={returnTo} />
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
