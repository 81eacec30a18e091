import { Outlet } from 'react-router';
import { Spinner } from '../ui/spinner.tsx';
import { DeferredPart } from '../app/deferred-part.tsx';
import { SetupStatusError } from './setup-status-error.tsx';
import { useSetupStatus } from './use-credentials.ts';
import { useSandboxStatus } from '../sandbox/use-sandbox.ts';
import { SandboxFlowBanner } from '../sandbox/sandbox-flow-banner.tsx';

/** The setup form is fetched only for an owner who still needs it: every other visit to a flow page does without it. */
const loadSetupInPlace = async () => (await import('./setup-in-place.tsx')).SetupInPlace;

/**
 * docs/product/specification.md §2: pages that need completed setup show the setup screen
 * instead until credentials are saved; then the page itself appears in its place.
 */
export function RequireSetup() {
  const status = useSetupStatus();
  // A sandbox owner sees the flows without credentials (docs/decisions/0026-sandbox.md).
  const sandbox = useSandboxStatus();
  if (status.isPending || sandbox.isPending) return <Spinner label="Checking your setup" />;
  if (sandbox.data?.active) {
    return (
      <>
        <SandboxFlowBanner />
        <Outlet />
      </>
    );
  }
  if (status.isError) return <SetupStatusError onRetry={() => void status.refetch()} />;
  if (status.data) return <Outlet />;
  return <DeferredPart load={loadSetupInPlace} label="the setup form" props={{}} />;
}
