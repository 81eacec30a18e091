import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { CheckCircle2, XCircle } from 'lucide-react';
import { authMessages } from '../../../shared/messages.ts';
import { VERIFICATION_REDIRECT_DELAY_MS } from '../../../shared/constants.ts';
import { pageRoutes } from '../../../shared/routes.ts';
import { ApiRequestError, callEndpoint } from '../../app/api-client.ts';
import { useAuth } from '../auth-context.tsx';
import { clearUrlFragment, readAuthLinkFragment } from '../url-fragment.ts';
import { AuthShell } from '../../layout/auth-shell.tsx';
import { Spinner } from '../../ui/spinner.tsx';
import { ButtonLink, TextLink } from '../../ui/text-link.tsx';
import { endpoints } from '../../../shared/api/endpoints.ts';

type Outcome = { state: 'loading' } | { state: 'verified' } | { state: 'failed'; message: string };

function failureMessage(error: unknown): string {
  if (error instanceof ApiRequestError) return error.message || authMessages.verificationFailed;
  return authMessages.verificationUnexpected;
}

/**
 * docs/product/specification.md §2 "Email verification callback": the landing page of the
 * confirmation mail. Loading, then "Email Verified!" (dashboard after 3 seconds) or
 * "Verification Failed".
 */
export function VerifyEmailPage() {
  const [link] = useState(() => readAuthLinkFragment());
  const [outcome, setOutcome] = useState<Outcome>({ state: 'loading' });
  const { refresh } = useAuth();
  const navigate = useNavigate();
  // A token works once; React's development double effects must not spend it twice.
  const started = useRef(false);

  useEffect(() => {
    clearUrlFragment();
    const token = link.accessToken;
    if (!token || started.current) return;
    started.current = true;
    void (async () => {
      try {
        const { signedIn } = await callEndpoint(endpoints.account.verifyEmail, { body: { token } });
        if (signedIn) await refresh().catch(() => null);
        setOutcome({ state: 'verified' });
      } catch (error) {
        setOutcome({ state: 'failed', message: failureMessage(error) });
      }
    })();
  }, [link.accessToken, refresh]);

  useEffect(() => {
    if (outcome.state !== 'verified') return;
    const timer = window.setTimeout(() => navigate(pageRoutes.dashboard), VERIFICATION_REDIRECT_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [outcome.state, navigate]);

  // docs/product/specification.md §5 names the case of neither token nor type; a type
  // without its token cannot be verified either, and the same advice applies.
  if (!link.accessToken) return <Failed message={authMessages.invalidVerificationLink} />;
  if (outcome.state === 'failed') return <Failed message={outcome.message} />;
  if (outcome.state === 'loading') {
    return (
      <AuthShell title="Verifying your email">
        <Spinner label="Verifying your email" />
      </AuthShell>
    );
  }
  return (
    <AuthShell title="Email Verified!">
      <div className="space-y-6 text-center">
        <CheckCircle2 aria-hidden="true" className="mx-auto h-12 w-12 text-green-600" />
        <p role="status" className="text-slate-700">
          Your email address is confirmed. Taking you to your dashboard in {VERIFICATION_REDIRECT_DELAY_MS / 1000} seconds…
        </p>
        <ButtonLink to={pageRoutes.dashboard} className="w-full">
          Go to Dashboard
        </ButtonLink>
      </div>
    </AuthShell>
  );
}

function Failed({ message }: { message: string }) {
  return (
    <AuthShell title="Verification Failed">
      <div className="space-y-6 text-center">
        <XCircle aria-hidden="true" className="mx-auto h-12 w-12 text-red-600" />
        <p role="alert" className="text-slate-700">
          {message}
        </p>
        <ButtonLink to={pageRoutes.login} className="w-full">
          Back to Login
        </ButtonLink>
        <p className="text-sm">
          <TextLink to={pageRoutes.verificationSent}>Request a new verification email</TextLink>
        </p>
      </div>
    </AuthShell>
  );
}
