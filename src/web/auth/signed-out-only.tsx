import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { useAuth } from './auth-context.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { pageRoutes } from '../../shared/routes.ts';

/** Sign-in and sign-up make no sense to someone already signed in: send them to the dashboard. */
export function SignedOutOnly({ children }: { children: ReactNode }) {
  const { user, loading } = useAuth();
  if (loading) return <Spinner label="Checking your session" />;
  if (user) return <Navigate to={pageRoutes.dashboard} replace />;
  return children;
}
