// Placeholder until the credentials pages land.
export function SetupPage() {
  return <h1>Complete Your Setup</h1>;
}
