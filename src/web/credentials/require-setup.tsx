import { Outlet } from 'react-router';
import { toast } from '../app/toast.ts';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { CredentialsForm } from './credentials-form.tsx';
import { SetupStatusError } from './setup-status-error.tsx';
import { setupIntro } from './setup-page.tsx';
import { useSetupStatus } from './use-credentials.ts';
import { useSandboxStatus } from '../sandbox/use-sandbox.ts';
import { SandboxFlowBanner } from '../sandbox/sandbox-flow-banner.tsx';
import { TrySandboxCard } from '../sandbox/try-sandbox-card.tsx';

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
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <title>Complete Your Setup · Flowsmith</title>
      <header className="space-y-1">
        <h1 className="text-2xl font-bold text-slate-900">Complete Your Setup</h1>
        <p className="text-slate-700">{setupIntro}</p>
      </header>
      <Card>
        <CredentialsForm stored={null} submitLabel="Save and Continue" onSaved={() => toast.success(credentialMessages.setupCompleted)} />
      </Card>
      <TrySandboxCard />
    </div>
  );
}
