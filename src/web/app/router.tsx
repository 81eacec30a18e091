import { createElement, lazy, type ComponentType, type ReactElement } from 'react';
import { matchPath, Navigate, Route, Routes } from 'react-router';
import { pageRoutes, webhookPagePattern } from '../../shared/routes.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { PageFrame } from './page-frame.tsx';

/**
 * A page or layout whose code is its own chunk, fetched when first shown: a visitor
 * downloads the code of the pages they open, not of the whole app. Declarative routes
 * rather than a data router: the data router's code alone is about 14 KB of the sign-in
 * page's budget.
 *
 * `preload` fetches it ahead; once it has arrived the page renders at once instead of
 * suspending, which is what lets a move keep the current page on screen until the next
 * one's code is here (PreloadingRouter, below).
 */
interface Preloadable {
  preload: () => Promise<void>;
}

function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ((props: P) => ReactElement) & Preloadable {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<void> | undefined;
  const preload = () =>
    (loading ??= load().then(
      (component) => {
        loaded = component;
      },
      (error: unknown) => {
        // Not kept: the next move to the page tries again (the page frame offers a reload).
        loading = undefined;
        throw error;
      },
    ));
  const Suspending = lazy(async () => {
    await preload();
    return { default: loaded! };
  });
  const Page = (props: P) => (loaded ? createElement(loaded, props) : createElement(Suspending, props));
  return Object.assign(Page, { preload });
}

const LoginPage = lazyPage(async () => (await import('../auth/pages/login-page.tsx')).LoginPage);
const RegisterPage = lazyPage(async () => (await import('../auth/pages/register-page.tsx')).RegisterPage);
const ForgotPasswordPage = lazyPage(async () => (await import('../auth/pages/forgot-password-page.tsx')).ForgotPasswordPage);
const ResetPasswordPage = lazyPage(async () => (await import('../auth/pages/reset-password-page.tsx')).ResetPasswordPage);
const VerificationSentPage = lazyPage(async () => (await import('../auth/pages/verification-sent-page.tsx')).VerificationSentPage);
const VerifyEmailPage = lazyPage(async () => (await import('../auth/pages/verify-email-page.tsx')).VerifyEmailPage);
const WebhookHandlerPage = lazyPage(async () => (await import('../webhooks/webhook-handler-page.tsx')).WebhookHandlerPage);
const RequireUser = lazyPage(async () => (await import('../auth/require-user.tsx')).RequireUser);
const AppShell = lazyPage(async () => (await import('../layout/app-shell.tsx')).AppShell);
const RequireSetup = lazyPage(async () => (await import('../credentials/require-setup.tsx')).RequireSetup);
const SetupPage = lazyPage(async () => (await import('../credentials/setup-page.tsx')).SetupPage);
const DashboardPage = lazyPage(async () => (await import('../dashboard/dashboard-page.tsx')).DashboardPage);
const ApiSettingsPage = lazyPage(async () => (await import('../credentials/api-settings-page.tsx')).ApiSettingsPage);
const FlowPage = lazyPage(async () => (await import('../flows/flow-page.tsx')).FlowPage);
const SandboxProfilesPage = lazyPage(async () => (await import('../sandbox/sandbox-profiles-page.tsx')).SandboxProfilesPage);
const PrivacyPage = lazyPage(async () => (await import('../privacy/privacy-page.tsx')).PrivacyPage);
const ReviewPage = lazyPage(async () => (await import('../reviews/review-page.tsx')).ReviewPage);

const flowPages: Array<[path: string, flowType: FlowType]> = [
  [pageRoutes.browserAbandonment, 'browser_abandonment'],
  [pageRoutes.abandonedCart, 'abandoned_cart'],
  [pageRoutes.abandonedCheckout, 'abandoned_checkout'],
  [pageRoutes.postPurchase, 'post_purchase'],
];

/**
 * The chunks of each page, layouts included, all fetched at once: a layout renders its
 * page only once it has arrived itself, so without this a signed-in page's chunks would
 * come one after another instead of together.
 */
const chunksOfPage: Record<string, Preloadable[]> = {
  [pageRoutes.login]: [LoginPage],
  [pageRoutes.register]: [RegisterPage],
  [pageRoutes.forgotPassword]: [ForgotPasswordPage],
  [pageRoutes.resetPassword]: [ResetPasswordPage],
  [pageRoutes.verificationSent]: [VerificationSentPage],
  [pageRoutes.verify]: [VerifyEmailPage],
  [pageRoutes.setup]: [RequireUser, SetupPage],
  [pageRoutes.dashboard]: [RequireUser, AppShell, DashboardPage],
  [pageRoutes.apiSettings]: [RequireUser, AppShell, ApiSettingsPage],
  [pageRoutes.sandboxProfiles]: [RequireUser, AppShell, SandboxProfilesPage],
  [pageRoutes.privacy]: [RequireUser, AppShell, PrivacyPage],
  [pageRoutes.reviews]: [RequireUser, AppShell, ReviewPage],
  ...Object.fromEntries(flowPages.map(([path]) => [path, [RequireUser, AppShell, RequireSetup, FlowPage]])),
};

/**
 * Fetches the code of the page at `pathname` (resolved when all of it has arrived, at
 * once when it had). An address that is no page needs nothing: the router sends it on.
 */
export function preloadPage(pathname: string): Promise<void> {
  // A flow page's section needs its page; the section's own chunk follows once the page renders.
  const flowPage = flowPages.find(([path]) => pathname.startsWith(`${path}/`))?.[0];
  const page = flowPage ?? (matchPath(webhookPagePattern, pathname) ? webhookPagePattern : pathname);
  const chunks = page === webhookPagePattern ? [WebhookHandlerPage] : (chunksOfPage[page] ?? []);
  return Promise.all(chunks.map((chunk) => chunk.preload())).then(() => undefined);
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
