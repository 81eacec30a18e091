import { Link, Outlet, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { LogOut, Workflow } from 'lucide-react';
import { useAuth } from '../auth/auth-context.tsx';
import { Button } from '../ui/button.tsx';
import { authMessages } from '../../shared/messages.ts';
import { pageRoutes } from '../../shared/routes.ts';

/** The signed-in pages' shared top bar: product name, the user's name (or email), Sign out. */
export function AppShell() {
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
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
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-5xl items-center justify-between px-4 py-3">
          <Link to={pageRoutes.dashboard} className="flex items-center gap-2 font-bold text-indigo-700">
            <Workflow aria-hidden="true" className="h-5 w-5" />
            Flowsmith
          </Link>
          <div className="flex items-center gap-4">
            <span className="text-sm text-slate-700">{user?.fullName || user?.email}</span>
            <Button variant="secondary" onClick={onSignOut}>
              <LogOut aria-hidden="true" className="h-4 w-4" />
              Sign out
            </Button>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-5xl px-4 py-8">
        <Outlet />
      </main>
    </div>
  );
}
