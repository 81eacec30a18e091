// Placeholder until the accounts pages land.
export function VerifyEmailPage() {
  return <main><h1>VerifyEmailPage</h1></main>;
}
