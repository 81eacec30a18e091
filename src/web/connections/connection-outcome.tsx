import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Alert } from '../ui/alert.tsx';
import { connectionMessages as m } from '../../shared/connections/connection-messages.ts';
import { connectedServices, connectionErrorCodes, type ConnectedService, type ConnectionErrorCode } from '../../shared/connections/connection-outcomes.ts';

/** The query keys the connection callback sends the owner back with. */
const outcomeKeys = ['connected', 'connection_error', 'service'] as const;

type Outcome = { kind: 'connected'; service: ConnectedService } | { kind: 'error'; service: ConnectedService; code: ConnectionErrorCode };

function isService(value: string | null): value is ConnectedService {
  return (connectedServices as readonly (string | null)[]).includes(value);
}

function isErrorCode(value: string | null): value is ConnectionErrorCode {
  return (connectionErrorCodes as readonly (string | null)[]).includes(value);
}

/** What the address says came back; only known codes count, so nothing typed into an address becomes text. */
export function connectionOutcomeOf(params: URLSearchParams): Outcome | null {
  const connected = params.get('connected');
  if (isService(connected)) return { kind: 'connected', service: connected };
  const code = params.get('connection_error');
  const service = params.get('service');
  if (isErrorCode(code) && isService(service)) return { kind: 'error', service, code };
  return null;
}

/**
 * After the service's consent page: "Shopify is connected", or why it was not, from
 * `?connected=` or `?connection_error=&service=`. The words stay on the page; the query
 * leaves the address at once (replacing the history entry), so a reload or a shared
 * link does not say it again.
 */
export function ConnectionOutcome({ onSetup = false, className = '' }: { onSetup?: boolean; className?: string }) {
  const [params, setParams] = useSearchParams();
  const [outcome] = useState(() => connectionOutcomeOf(params));
  const inAddress = outcomeKeys.some((key) => params.has(key));

  useEffect(() => {
    if (!inAddress) return;
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const key of outcomeKeys) next.delete(key);
        return next;
      },
      { replace: true },
    );
  }, [inAddress, setParams]);

  if (!outcome) return null;
  if (outcome.kind === 'connected') {
    return (
      <Alert tone="success" title={m.connected[outcome.service]} className={className}>
        {onSetup ? m.connectedOnSetup : null}
      </Alert>
    );
  }
  return (
    <Alert tone="error" title={m.notConnectedTitle(outcome.service)} className={className}>
      {m.errors[outcome.code](outcome.service)}
    </Alert>
  );
}
