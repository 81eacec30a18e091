import { useState } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { LogOut, Workflow } from 'lucide-react';
import { useAuth } from '../auth/auth-context.tsx';
import { Button } from '../ui/button.tsx';
import { authMessages } from '../../shared/messages.ts';
import { pageRoutes } from '../../shared/routes.ts';

const navigation = [
  { to: pageRoutes.dashboard, label: 'Dashboard' },
  { to: pageRoutes.apiSettings, label: 'API Settings' },
] as const;

const navLinkClasses = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
    isActive ? 'bg-indigo-50 text-indigo-800' : 'text-slate-700 hover:bg-slate-100 hover:text-slate-900'
  }`;

/** The signed-in pages' shared top bar: product name, the user's name (or email), Sign out. */
export function AppShell() {
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);
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
        <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <div className="flex items-center gap-6">
            <Link
              to={pageRoutes.dashboard}
              className="flex items-center gap-2 rounded-md font-bold text-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            >
              <Workflow aria-hidden="true" className="h-5 w-5" />
              Flowsmith
            </Link>
            <nav aria-label="Main" className="flex items-center gap-1">
              {navigation.map((item) => (
                <NavLink key={item.to} to={item.to} end className={navLinkClasses}>
                  {item.label}
                </NavLink>
              ))}
            </nav>
          </div>
          <div className="flex min-w-0 items-center gap-4">
            <span className="max-w-[16rem] truncate text-sm text-slate-700" title={user?.email}>
              {user?.fullName || user?.email}
            </span>
            <Button variant="secondary" onClick={onSignOut} busy={signingOut}>
              <LogOut aria-hidden="true" className="h-4 w-4" />
              Sign out
            </Button>
          </div>
        </div>
      </header>
      <main id="main-content" tabIndex={-1} className="mx-auto max-w-5xl px-4 py-8 focus:outline-none">
        <Outlet />
      </main>
    </div>
  );
}
