import { Navigate, Outlet } from 'react-router';
import { useAuth } from './auth-context.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { pageRoutes } from '../../shared/routes.ts';

/** SPEC.md: protected pages redirect to /auth/login when there is no user. */
export function RequireUser() {
  const { user, loading } = useAuth();
  if (loading) return <Spinner />;
  if (!user) return <Navigate to={pageRoutes.login} replace />;
  return <Outlet />;
}
