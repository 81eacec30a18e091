// Placeholder until the webhook handler page lands.
export function WebhookHandlerPage() {
  return <h1>Processing Webhook</h1>;
}
