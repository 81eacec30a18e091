/** What the sandbox says to the owner, on the pages and in the API's answers. */
export const sandboxMessages = {
  badge: 'Sandbox',
  tryTitle: 'Try with a sample shop',
  tryDescription:
    'See what Flowsmith writes before connecting anything: a sample shop, a sandbox Klaviyo and, until you add an OpenAI key, a sample writer stand in for your accounts. Nothing is sent to a real service.',
  tryButton: 'Try with a sample shop',
  started: 'Sandbox on: your flows use the sample shop. Send sample shopper activity to see texts.',
  activeTitle: 'Sandbox: sample shop',
  activeDescription:
    'Your flows run for real against a built-in sample shop, sandbox Klaviyo and sample writer. Nothing leaves Flowsmith except calls to OpenAI with your own key, if you add one.',
  sendActivity: 'Send sample shopper activity',
  activitySent: (count: number) => `${count} sample ${count === 1 ? 'event' : 'events'} sent. Texts appear on the sandbox profiles in a few seconds.`,
  viewProfiles: 'View sandbox Klaviyo profiles',
  profilesTitle: 'Sandbox Klaviyo profiles',
  profilesDescription: 'The profiles of the sandbox Klaviyo, with the properties your flows wrote. Only you can see them.',
  noProfiles: 'No sandbox profiles yet.',
  noProperties: 'No properties written yet.',
  noRecommendations: 'No recommended products for this shopper.',
  flowBanner: 'This flow runs in the sandbox: its events use the sample shop, sandbox Klaviyo and sample writer.',
  useRealServices: 'Use my real services',
  useRealServicesHint: 'Events from now on go to your own OpenAI, Klaviyo and Shopify accounts. Sandbox events stay in the sandbox.',
  needCredentials: 'Save your API credentials first; then you can switch to your real services.',
  switchedToReal: 'Your flows now use your real services.',
  writerSample: 'Texts come from the sample writer: they are labelled as sample text and show what would be sent to OpenAI.',
  writerOpenai: 'Texts come from OpenAI with your key.',
  openaiKeyLabel: 'OpenAI key for the sandbox (optional)',
  openaiKeySaved: 'The sandbox now writes with OpenAI.',
  openaiKeyRemoved: 'The sandbox writes sample texts again.',
  notInSandbox: 'The sandbox is not on for this account.',
  noSandboxAccount: 'This account has not tried the sandbox.',
  /** The first words of every sample writer's text, so it can never pass for a real one. */
  sampleTextLabel: '[Sample text, not written by AI]',
} as const;
