/** The privacy feature's words, shared by the API's answers and the page. */
export const privacyMessages = {
  unknownAddress: 'This privacy webhook address is not known. Copy it again from Settings → Store connection.',
  invalidSignature: 'The request is not signed with the store’s Shopify signing secret.',
  unknownTopic: 'X-Shopify-Topic must be customers/data_request, customers/redact or shop/redact.',
  malformedBody: 'The body is not a Shopify compliance webhook: JSON with shop_domain, and customer for customer requests.',
  exportNotFound: 'No export with this id; it may have been erased with the shopper.',
  klaviyoNoCredentials: 'No Klaviyo key is saved, so the profile was not changed.',
  klaviyoFailed: 'Klaviyo did not accept the change; the shopper’s data in Flowsmith is erased all the same.',
};
