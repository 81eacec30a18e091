// Placeholder until the accounts pages land.
export function RegisterPage() {
  return <main><h1>RegisterPage</h1></main>;
}
