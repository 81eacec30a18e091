// Placeholder until the accounts pages land.
export function VerificationSentPage() {
  return <main><h1>VerificationSentPage</h1></main>;
}
