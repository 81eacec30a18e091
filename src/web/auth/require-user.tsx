import { Navigate, Outlet } from 'react-router';
import { useAuth } from './auth-context.tsx';
import { IdleSignOut } from './idle-sign-out.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { useFlows } from '../flows/use-flows.ts';
import { pageRoutes } from '../../shared/routes.ts';

/**
 * docs/product/specification.md §4: flow configurations are loaded at login, whichever
 * page opens first.
 */
function LoadFlowsAtSignIn() {
  useFlows();
  return null;
}

/**
 * docs/product/specification.md §2: protected pages redirect to /auth/login when there is
 * no user. Every signed-in page, /setup included, gets the idle sign-out.
 */
export function RequireUser() {
  const { user, loading } = useAuth();
  if (loading) return <Spinner />;
  if (!user) return <Navigate to={pageRoutes.login} replace />;
  return (
    <>
      <IdleSignOut />
      <LoadFlowsAtSignIn />
      <Outlet />
    </>
  );
}
