// Placeholder until the accounts pages land.
export function ForgotPasswordPage() {
  return <main><h1>ForgotPasswordPage</h1></main>;
}
