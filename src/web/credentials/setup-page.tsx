import { Navigate, useNavigate } from 'react-router';
import { toast } from '../app/toast.ts';
import { useAuth } from '../auth/auth-context.tsx';
import { AuthShell } from '../layout/auth-shell.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { Button } from '../ui/button.tsx';
import { pageRoutes } from '../../shared/routes.ts';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { authMessages } from '../../shared/messages.ts';
import { CredentialsForm } from './credentials-form.tsx';
import { SetupStatusError } from './setup-status-error.tsx';
import { useSetupStatus } from './use-credentials.ts';
import { TrySandboxCard } from '../sandbox/try-sandbox-card.tsx';
import { ConnectionOutcome } from '../connections/connection-outcome.tsx';

export const setupIntro = 'Connect Klaviyo, OpenAI and Shopify. Each key is checked with its service before it is saved.';

/**
 * docs/product/specification.md §2 "Setup screen" at /setup: no user → login; setup
 * complete → dashboard.
 */
export function SetupPage() {
  const { user, loading, signOut } = useAuth();
  const navigate = useNavigate();
  const status = useSetupStatus();
  if (loading) return <Spinner />;
  if (!user) return <Navigate to={pageRoutes.login} replace />;
  if (status.isPending) return <Spinner label="Checking your setup" />;
  if (status.isError) return <SetupStatusError onRetry={() => void status.refetch()} />;
  if (status.data) return <Navigate to={pageRoutes.dashboard} replace />;

  const onSignOut = async () => {
    try {
      await signOut();
      toast.success(authMessages.loggedOut);
    } catch {
      toast.error(authMessages.signOutFallback);
    }
    navigate(pageRoutes.login);
  };

  return (
    <AuthShell title="Complete Your Setup" description={setupIntro}>
      {/* Back from Shopify's or Klaviyo's consent page: whether it connected. */}
      <ConnectionOutcome onSetup className="mb-6" />
      <CredentialsForm
        stored={null}
        submitLabel="Save and Continue"
        returnTo={pageRoutes.setup}
        onSaved={() => {
          toast.success(credentialMessages.setupCompleted);
          navigate(pageRoutes.dashboard);
        }}
      />
      <div className="mt-6">
        <TrySandboxCard onStarted={() => navigate(pageRoutes.dashboard)} />
      </div>
      <p className="mt-6 text-center text-sm text-slate-700">
        Not now?{' '}
        <Button variant="secondary" className="ml-1" onClick={() => void onSignOut()}>
          Sign out
        </Button>
      </p>
    </AuthShell>
  );
}
