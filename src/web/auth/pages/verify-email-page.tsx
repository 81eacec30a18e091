import { useEffect, useLayoutEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { CheckCircle2, XCircle } from 'lucide-react';
import { authMessages } from '../../../shared/messages.ts';
import { VERIFICATION_REDIRECT_DELAY_MS } from '../../../shared/constants.ts';
import { pageRoutes } from '../../../shared/routes.ts';
import { ApiRequestError } from '../../app/api-client.ts';
import { clearUrlFragment, readAuthLinkFragment } from '../url-fragment.ts';
import { useVerifyEmail } from '../use-verify-email.ts';
import { AuthShell } from '../../layout/auth-shell.tsx';
import { Spinner } from '../../ui/spinner.tsx';
import { ButtonLink, TextLink } from '../../ui/text-link.tsx';

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
  const navigate = useNavigate();
  // The token leaves the address at once, before it is spent.
  // Before the page is painted: the token leaves the address bar (and its history entry) at once.
  useLayoutEffect(clearUrlFragment, []);
  const verification = useVerifyEmail(link.accessToken);

  const verified = verification.isSuccess;
  useEffect(() => {
    if (!verified) return;
    const timer = window.setTimeout(() => navigate(pageRoutes.dashboard), VERIFICATION_REDIRECT_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [verified, navigate]);

  // docs/product/specification.md §5 names the case of neither token nor type; a type
  // without its token cannot be verified either, and the same advice applies.
  if (!link.accessToken) return <Failed message={authMessages.invalidVerificationLink} />;
  if (verification.isError) return <Failed message={failureMessage(verification.error)} />;
  if (!verified) {
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
