import { Outlet } from 'react-router';

// Placeholder until the credentials pages land: lets every signed-in page through.
export function RequireSetup() {
  return <Outlet />;
}
