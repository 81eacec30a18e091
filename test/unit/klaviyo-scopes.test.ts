import { describe, expect, it } from 'vitest';
import { klaviyoOperation, klaviyoOperationsUsed } from '../contracts/klaviyo-definition.ts';
import { credentialCheckMessages, credentialMessages } from '../../src/shared/credentials/credential-messages.ts';
import { klaviyoKeyScopes, klaviyoProbedScopes } from '../../src/shared/credentials/klaviyo-scopes.ts';

/** What the owner is asked to give the Klaviyo key, held against Klaviyo's own definition of the operations Flowsmith calls. */
const neededByDefinition = [...new Set(klaviyoOperationsUsed.flatMap((name) => klaviyoOperation(name).scopes))].sort();

describe('the Klaviyo key’s scopes', () => {
  it('are exactly the scopes of every Klaviyo operation Flowsmith calls', () => {
    expect([...klaviyoKeyScopes].sort()).toEqual(neededByDefinition);
    // Bulk import jobs need the Lists scopes as well as Profiles.
    expect(neededByDefinition).toEqual(expect.arrayContaining(['lists:read', 'lists:write']));
  });

  it('are all named in the setup hint and in the key check’s message', () => {
    for (const scope of neededByDefinition) {
      expect(credentialMessages.klaviyoKeyHint, scope).toContain(scope);
      expect(credentialCheckMessages.klaviyoKeyMissingScope(['lists:read']), scope).toContain(scope);
    }
  });

  it('are probed where a cheap read can tell, and the message names the one missing', () => {
    expect([...klaviyoProbedScopes].sort()).toEqual(['accounts:read', 'lists:read', 'profiles:read']);
    expect(credentialCheckMessages.klaviyoKeyMissingScope(['lists:read'])).toMatch(/^This Klaviyo API key lacks Lists read access \(lists:read\)/);
  });
});
