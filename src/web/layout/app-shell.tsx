import { useEffect, useId, useState } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { toast } from '../app/toast.ts';
import { LogOut, Menu, Workflow, X } from 'lucide-react';
import { useAuth } from '../auth/auth-context.tsx';
import { Button } from '../ui/button.tsx';
import { authMessages } from '../../shared/messages.ts';
import { pageRoutes } from '../../shared/routes.ts';
import { usePendingReviewCount } from '../reviews/use-reviews.ts';

const navigation = [
  { to: pageRoutes.dashboard, label: 'Dashboard' },
  { to: pageRoutes.reviews, label: 'Approvals' },
  { to: pageRoutes.apiSettings, label: 'API Settings' },
  { to: pageRoutes.privacy, label: 'Privacy' },
] as const;

const navLinkClasses = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
    isActive ? 'bg-indigo-50 text-indigo-800' : 'text-slate-700 hover:bg-slate-100 hover:text-slate-900'
  }`;

/** The links to the signed-in pages: in the top bar on a wide screen, in the menu on a phone. */
function MainNavigation({ className, onNavigate }: { className: string; onNavigate?: () => void }) {
  const pendingReviews = usePendingReviewCount().data?.pending ?? 0;
  return (
    <nav aria-label="Main" className={className}>
      {navigation.map((item) => (
        <NavLink key={item.to} to={item.to} end className={navLinkClasses} onClick={onNavigate}>
          {item.label}
          {item.to === pageRoutes.reviews && pendingReviews > 0 ? (
            <span data-testid="pending-review-count" className="ml-1.5 rounded-full bg-amber-100 px-1.5 py-0.5 text-xs font-semibold tabular-nums text-amber-900">
              <span className="sr-only">, </span>
              {pendingReviews}
              <span className="sr-only"> waiting</span>
            </span>
          ) : null}
        </NavLink>
      ))}
    </nav>
  );
}

/** Who is signed in, and Sign out. */
function AccountControls(props: { name: string | undefined; email: string | undefined; onSignOut: () => void; signingOut: boolean; nameClassName?: string }) {
  return (
    <>
      <span className={`truncate text-sm text-slate-700 ${props.nameClassName ?? ''}`} title={props.email}>
        {props.name}
      </span>
      <Button variant="secondary" onClick={props.onSignOut} busy={props.signingOut}>
        <LogOut aria-hidden="true" className="h-4 w-4" />
        Sign out
      </Button>
    </>
  );
}

/**
 * The signed-in pages' shared top bar: product name, the user's name (or email), Sign out.
 * Below `md` the navigation, the name and Sign out fold into a Menu button: side by side
 * they would not fit a phone's width.
 */
export function AppShell() {
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menuOpen]);
  const onSignOut = async () => {
    setSigningOut(true);
    try {
      await signOut();
      toast.success(authMessages.loggedOut);
    } catch {
      toast.error(authMessages.signOutFallback);
    } finally {
      setSigningOut(false);
    }
    navigate(pageRoutes.login);
  };
  return (
    <div className="min-h-screen">
      <a
        href="#main-content"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:text-sm focus:font-semibold focus:text-indigo-700 focus:shadow"
      >
        Skip to content
      </a>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-5xl items-center justify-between gap-3 px-4 py-3">
          <div className="flex min-w-0 items-center gap-6">
            <Link
              to={pageRoutes.dashboard}
              className="flex items-center gap-2 rounded-md font-bold text-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            >
              <Workflow aria-hidden="true" className="h-5 w-5" />
              Flowsmith
            </Link>
            <MainNavigation className="hidden items-center gap-1 md:flex" />
          </div>
          <div className="hidden min-w-0 items-center gap-4 md:flex">
            <AccountControls name={user?.fullName || user?.email} email={user?.email} onSignOut={onSignOut} signingOut={signingOut} nameClassName="max-w-[16rem]" />
          </div>
          <button
            type="button"
            className="inline-flex items-center gap-2 rounded-md px-3 py-2 text-sm font-medium text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 md:hidden"
            aria-expanded={menuOpen}
            aria-controls={menuId}
            onClick={() => setMenuOpen((open) => !open)}
          >
            {menuOpen ? <X aria-hidden="true" className="h-5 w-5" /> : <Menu aria-hidden="true" className="h-5 w-5" />}
            Menu
          </button>
        </div>
        {menuOpen ? (
          <div id={menuId} className="border-t border-slate-200 px-4 pb-4 pt-2 md:hidden">
            {/* Following a link closes the menu: the page it leads to should not open covered. */}
            <MainNavigation className="flex flex-col gap-1" onNavigate={() => setMenuOpen(false)} />
            <div className="mt-3 flex flex-col gap-3 border-t border-slate-200 pt-3">
              <AccountControls name={user?.fullName || user?.email} email={user?.email} onSignOut={onSignOut} signingOut={signingOut} />
            </div>
          </div>
        ) : null}
      </header>
      <main id="main-content" tabIndex={-1} className="mx-auto max-w-5xl px-4 py-6 focus:outline-none sm:py-8">
        <Outlet />
      </main>
    </div>
  );
}
