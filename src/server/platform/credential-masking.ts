/**
 * docs/product/specification.md §3, "Masking for display": nothing for an empty value
 * (the screen says "Not set"), all asterisks up to 8 characters, else the first 4 and
 * last 4 characters with asterisks between. Done on the server only: a secret never
 * leaves it unmasked.
 */
export function maskSecret(value: string | null | undefined): string | null {
  if (!value) return null;
  if (value.length <= 8) return '*'.repeat(value.length);
  return `${value.slice(0, 4)}${'*'.repeat(value.length - 8)}${value.slice(-4)}`;
}

/**
 * The update form sends a secret back in its masked form when the owner left it
 * unchanged; then the stored value stays. Masks contain asterisks, which keys never do.
 */
export function isUnchangedMask(submitted: string, stored: string | null): stored is string {
  return stored !== null && submitted.includes('*') && submitted === maskSecret(stored);
}
