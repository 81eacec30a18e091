import { createBrowserRouter, Navigate } from 'react-router';
import { pageRoutes, webhookPagePattern } from '../../shared/routes.ts';
import { RequireUser } from '../auth/require-user.tsx';
import { AppShell } from '../layout/app-shell.tsx';
import { LoginPage } from '../auth/pages/login-page.tsx';
import { RegisterPage } from '../auth/pages/register-page.tsx';
import { ForgotPasswordPage } from '../auth/pages/forgot-password-page.tsx';
import { ResetPasswordPage } from '../auth/pages/reset-password-page.tsx';
import { VerificationSentPage } from '../auth/pages/verification-sent-page.tsx';
import { VerifyEmailPage } from '../auth/pages/verify-email-page.tsx';
import { DashboardPage } from '../dashboard/dashboard-page.tsx';
import { SetupPage } from '../credentials/setup-page.tsx';
import { RequireSetup } from '../credentials/require-setup.tsx';
import { ApiSettingsPage } from '../credentials/api-settings-page.tsx';
import { FlowPage } from '../flows/flow-page.tsx';
import { WebhookHandlerPage } from '../webhooks/webhook-handler-page.tsx';
import { SandboxProfilesPage } from '../sandbox/sandbox-profiles-page.tsx';

/** SPEC.md's route table. The server serves index.html for exactly these paths. */
export const router = createBrowserRouter([
  { path: '/', element: <Navigate to={pageRoutes.dashboard} replace /> },
  { path: pageRoutes.login, element: <LoginPage /> },
  { path: pageRoutes.register, element: <RegisterPage /> },
  { path: pageRoutes.forgotPassword, element: <ForgotPasswordPage /> },
  { path: pageRoutes.resetPassword, element: <ResetPasswordPage /> },
  { path: pageRoutes.verificationSent, element: <VerificationSentPage /> },
  { path: pageRoutes.verify, element: <VerifyEmailPage /> },
  { path: webhookPagePattern, element: <WebhookHandlerPage /> },
  {
    element: <RequireUser />,
    children: [
      { path: pageRoutes.setup, element: <SetupPage /> },
      {
        element: <AppShell />,
        children: [
          { path: pageRoutes.dashboard, element: <DashboardPage /> },
          { path: pageRoutes.apiSettings, element: <ApiSettingsPage /> },
          { path: pageRoutes.sandboxProfiles, element: <SandboxProfilesPage /> },
          {
            element: <RequireSetup />,
            children: [
              { path: pageRoutes.browserAbandonment, element: <FlowPage flowType="browser_abandonment" /> },
              { path: pageRoutes.abandonedCart, element: <FlowPage flowType="abandoned_cart" /> },
              { path: pageRoutes.abandonedCheckout, element: <FlowPage flowType="abandoned_checkout" /> },
              { path: pageRoutes.postPurchase, element: <FlowPage flowType="post_purchase" /> },
            ],
          },
        ],
      },
    ],
  },
  { path: '*', element: <Navigate to={pageRoutes.dashboard} replace /> },
]);
