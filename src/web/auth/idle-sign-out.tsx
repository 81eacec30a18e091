// Placeholder until the accounts pages land.
export function IdleSignOut() {
  return null;
}
