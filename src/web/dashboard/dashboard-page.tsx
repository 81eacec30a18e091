// Placeholder until the dashboard lands.
export function DashboardPage() {
  return <h1>Dashboard</h1>;
}
