// Placeholder until the credentials pages land.
export function ApiSettingsPage() {
  return <h1>API Settings</h1>;
}
