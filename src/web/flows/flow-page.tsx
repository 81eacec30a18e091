// Placeholder until the flow pages land.
export function FlowPage({ flowType }: { flowType: string }) {
  return <h1>{flowType}</h1>;
}
