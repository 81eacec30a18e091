// Placeholder until the accounts pages land.
export function ResetPasswordPage() {
  return <main><h1>ResetPasswordPage</h1></main>;
}
