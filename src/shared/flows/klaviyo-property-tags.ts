/**
 * How a Klaviyo email reads the property an assistant writes. Klaviyo's templates follow
 * Django's: `{{ person.subject_line1 }}` works only when the name is a plain identifier
 * (letters, digits and underscores, starting with a letter); a dot would be read as a
 * nested lookup, a hyphen or space ends the name. `{{ person|lookup:'…' }}` reads any
 * name, so that is the tag shown; names that need it are flagged, since owners copying
 * `person.name` from Klaviyo's examples would get an empty value.
 */

/** A name `{{ person.<name> }}` can read. */
const plainIdentifier = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Past this, a name is easy to mistype in a template and hard to scan in Klaviyo's lists. */
export const LONG_KLAVIYO_PROPERTY = 40;

/** The tag that reads `property` from the shopper's profile in a Klaviyo template. */
export function klaviyoLookupTag(property: string): string {
  return `{{ person|lookup:'${property.trim()}' }}`;
}

export type AwkwardTrait = 'spaces' | 'hyphens' | 'dots' | 'leading digit' | 'leading underscore' | 'other characters';

/** What keeps `{{ person.<property> }}` from reading this name; empty for a plain identifier. */
export function awkwardTraitsOf(property: string): AwkwardTrait[] {
  const name = property.trim();
  if (name === '' || plainIdentifier.test(name)) return [];
  const traits: AwkwardTrait[] = [];
  if (/\s/.test(name)) traits.push('spaces');
  if (name.includes('-')) traits.push('hyphens');
  if (name.includes('.')) traits.push('dots');
  if (/^\d/.test(name)) traits.push('leading digit');
  if (name.startsWith('_')) traits.push('leading underscore');
  if (/[^A-Za-z0-9_\s.-]/.test(name)) traits.push('other characters');
  return traits;
}

export const klaviyoTagMessages = {
  tagLabel: 'In your Klaviyo email',
  copy: 'Copy tag',
  copied: 'Copied',
  copyFailed: 'Could not copy: select the tag and copy it yourself.',
  awkward: (property: string, traits: readonly AwkwardTrait[]) =>
    `"${property.trim()}" has ${describeTraits(traits)}, so Klaviyo can read it only with the tag above, not as {{ person.${property.trim()} }}. A name of letters, digits and underscores, such as subject_line1, works both ways.`,
  long: (max: number) => `Long names are easy to mistype in Klaviyo templates: keep it to ${max} characters or fewer.`,
} as const;

const traitWords: Record<AwkwardTrait, string> = {
  spaces: 'spaces',
  hyphens: 'hyphens',
  dots: 'dots',
  'leading digit': 'a digit first',
  'leading underscore': 'an underscore first',
  'other characters': 'characters other than letters, digits and underscores',
};

function describeTraits(traits: readonly AwkwardTrait[]): string {
  const words = traits.map((trait) => traitWords[trait]);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** Every warning a property name deserves, in the owner's words. */
export function klaviyoPropertyWarnings(property: string): string[] {
  const warnings: string[] = [];
  const traits = awkwardTraitsOf(property);
  if (traits.length > 0) warnings.push(klaviyoTagMessages.awkward(property, traits));
  if (property.trim().length > LONG_KLAVIYO_PROPERTY) warnings.push(klaviyoTagMessages.long(LONG_KLAVIYO_PROPERTY));
  return warnings;
}
