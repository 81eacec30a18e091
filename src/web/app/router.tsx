import { lazy } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { pageRoutes, webhookPagePattern } from '../../shared/routes.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { PageFrame } from './page-frame.tsx';

/*
 * Every page and layout is its own chunk, fetched when first shown: a visitor downloads
 * the code of the pages they open, not of the whole app. Declarative routes rather than a
 * data router: the data router's code alone is about 14 KB of the sign-in page's budget.
 */
const chunks = {
  login: () => import('../auth/pages/login-page.tsx'),
  register: () => import('../auth/pages/register-page.tsx'),
  forgotPassword: () => import('../auth/pages/forgot-password-page.tsx'),
  resetPassword: () => import('../auth/pages/reset-password-page.tsx'),
  verificationSent: () => import('../auth/pages/verification-sent-page.tsx'),
  verify: () => import('../auth/pages/verify-email-page.tsx'),
  webhookHandler: () => import('../webhooks/webhook-handler-page.tsx'),
  requireUser: () => import('../auth/require-user.tsx'),
  appShell: () => import('../layout/app-shell.tsx'),
  requireSetup: () => import('../credentials/require-setup.tsx'),
  setup: () => import('../credentials/setup-page.tsx'),
  dashboard: () => import('../dashboard/dashboard-page.tsx'),
  apiSettings: () => import('../credentials/api-settings-page.tsx'),
  flow: () => import('../flows/flow-page.tsx'),
  sandboxProfiles: () => import('../sandbox/sandbox-profiles-page.tsx'),
  privacy: () => import('../privacy/privacy-page.tsx'),
  reviews: () => import('../reviews/review-page.tsx'),
};

const LoginPage = lazy(async () => ({ default: (await chunks.login()).LoginPage }));
const RegisterPage = lazy(async () => ({ default: (await chunks.register()).RegisterPage }));
const ForgotPasswordPage = lazy(async () => ({ default: (await chunks.forgotPassword()).ForgotPasswordPage }));
const ResetPasswordPage = lazy(async () => ({ default: (await chunks.resetPassword()).ResetPasswordPage }));
const VerificationSentPage = lazy(async () => ({ default: (await chunks.verificationSent()).VerificationSentPage }));
const VerifyEmailPage = lazy(async () => ({ default: (await chunks.verify()).VerifyEmailPage }));
const WebhookHandlerPage = lazy(async () => ({ default: (await chunks.webhookHandler()).WebhookHandlerPage }));
const RequireUser = lazy(async () => ({ default: (await chunks.requireUser()).RequireUser }));
const AppShell = lazy(async () => ({ default: (await chunks.appShell()).AppShell }));
const RequireSetup = lazy(async () => ({ default: (await chunks.requireSetup()).RequireSetup }));
const SetupPage = lazy(async () => ({ default: (await chunks.setup()).SetupPage }));
const DashboardPage = lazy(async () => ({ default: (await chunks.dashboard()).DashboardPage }));
const ApiSettingsPage = lazy(async () => ({ default: (await chunks.apiSettings()).ApiSettingsPage }));
const FlowPage = lazy(async () => ({ default: (await chunks.flow()).FlowPage }));
const SandboxProfilesPage = lazy(async () => ({ default: (await chunks.sandboxProfiles()).SandboxProfilesPage }));
const PrivacyPage = lazy(async () => ({ default: (await chunks.privacy()).PrivacyPage }));
const ReviewPage = lazy(async () => ({ default: (await chunks.reviews()).ReviewPage }));

const flowPages: Array<[path: string, flowType: FlowType]> = [
  [pageRoutes.browserAbandonment, 'browser_abandonment'],
  [pageRoutes.abandonedCart, 'abandoned_cart'],
  [pageRoutes.abandonedCheckout, 'abandoned_checkout'],
  [pageRoutes.postPurchase, 'post_purchase'],
];

/**
 * The chunks of the page the app opens on, layouts included. A layout renders its page
 * only once it has arrived itself, so without this a signed-in page's chunks would come
 * one after another instead of together.
 */
const chunksOfPage: Record<string, Array<() => Promise<unknown>>> = {
  [pageRoutes.setup]: [chunks.requireUser, chunks.setup],
  [pageRoutes.dashboard]: [chunks.requireUser, chunks.appShell, chunks.dashboard],
  [pageRoutes.apiSettings]: [chunks.requireUser, chunks.appShell, chunks.apiSettings],
  [pageRoutes.sandboxProfiles]: [chunks.requireUser, chunks.appShell, chunks.sandboxProfiles],
  [pageRoutes.privacy]: [chunks.requireUser, chunks.appShell, chunks.privacy],
  [pageRoutes.reviews]: [chunks.requireUser, chunks.appShell, chunks.reviews],
  ...Object.fromEntries(flowPages.map(([path]) => [path, [chunks.requireUser, chunks.appShell, chunks.requireSetup, chunks.flow]])),
};

export function preloadPage(pathname: string): void {
  // A flow page's section preloads its page; the section's own chunk follows once the page renders.
  const page = flowPages.find(([path]) => pathname.startsWith(`${path}/`))?.[0] ?? pathname;
  // A failed fetch is reported where the page renders (PageFrame's error screen).
  for (const load of chunksOfPage[page] ?? []) load().catch(() => undefined);
}

/**
 * The route table of docs/product/specification.md §2. The server serves index.html for
 * exactly these paths.
 */
export function AppRoutes() {
  return (
    <PageFrame>
      <Routes>
        <Route path="/" element={<Navigate to={pageRoutes.dashboard} replace />} />
        <Route path={pageRoutes.login} element={<LoginPage />} />
        <Route path={pageRoutes.register} element={<RegisterPage />} />
        <Route path={pageRoutes.forgotPassword} element={<ForgotPasswordPage />} />
        <Route path={pageRoutes.resetPassword} element={<ResetPasswordPage />} />
        <Route path={pageRoutes.verificationSent} element={<VerificationSentPage />} />
        <Route path={pageRoutes.verify} element={<VerifyEmailPage />} />
        <Route path={webhookPagePattern} element={<WebhookHandlerPage />} />
        <Route element={<RequireUser />}>
          <Route path={pageRoutes.setup} element={<SetupPage />} />
          <Route element={<AppShell />}>
            <Route path={pageRoutes.dashboard} element={<DashboardPage />} />
            <Route path={pageRoutes.apiSettings} element={<ApiSettingsPage />} />
            <Route path={pageRoutes.sandboxProfiles} element={<SandboxProfilesPage />} />
            <Route path={pageRoutes.privacy} element={<PrivacyPage />} />
            <Route path={pageRoutes.reviews} element={<ReviewPage />} />
            <Route element={<RequireSetup />}>
              {flowPages.flatMap(([path, flowType]) => [
                <Route key={path} path={path} element={<FlowPage flowType={flowType} />} />,
                // The page at its own address, and at each of its sections' (flow-page.tsx checks the name).
                <Route key={`${path}/sections`} path={`${path}/:section`} element={<FlowPage flowType={flowType} />} />,
              ])}
            </Route>
          </Route>
        </Route>
        <Route path="*" element={<Navigate to={pageRoutes.dashboard} replace />} />
      </Routes>
    </PageFrame>
  );
}
