import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The zod schemas of one endpoint, each from its feature's own schema module in
 * src/shared/<feature>/. `response` is the answer of the success status `status`.
 */
export interface EndpointSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
}

/**
 * One endpoint of the API: its method, its full path (`:name` marks a path parameter),
 * its success status and its schemas. The schemas come through `schemas()`, a dynamic
 * import of the feature's schema module, so that a page loads zod and a feature's
 * schemas only when it first reads an answer that needs them: the sign-in page's first
 * load stays without zod (docs/decisions/0024-serving-pages.md), while the server
 * awaits them once when it registers the route.
 */
export interface Endpoint<S extends EndpointSchemas = EndpointSchemas> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly status: number;
  readonly schemas: () => Promise<S>;
}

export function endpoint<S extends EndpointSchemas>(method: HttpMethod, path: string, schemas: () => Promise<S>, status = 200): Endpoint<S> {
  return { method, path, status, schemas };
}

type SchemasOf<E> = E extends Endpoint<infer S> ? S : never;
type Output<S, K extends keyof EndpointSchemas> = S extends { [key in K]: infer T extends z.ZodType } ? z.output<T> : undefined;
type Input<S, K extends keyof EndpointSchemas> = S extends { [key in K]: infer T extends z.ZodType } ? z.input<T> : undefined;

/** What a successful answer of the endpoint holds, as its response schema reads it. */
export type EndpointResponse<E> = SchemasOf<E> extends { response: z.ZodType } ? Output<SchemasOf<E>, 'response'> : void;
/** The path parameters the endpoint's address needs. */
export type EndpointParams<E> = Input<SchemasOf<E>, 'params'>;
/** The query the endpoint takes, as the server reads it (the address carries each value as text). */
export type EndpointQuery<E> = Output<SchemasOf<E>, 'query'>;
/** The body the endpoint takes. */
export type EndpointBody<E> = Input<SchemasOf<E>, 'body'>;

/**
 * The address of an endpoint with its path parameters and query filled in: what a link,
 * an EventSource or the API client requests. Values are encoded; a query value that is
 * undefined or null is left out.
 */
export function endpointAddress(endpoint: Endpoint, input: { params?: object; query?: object } = {}): string {
  const params = (input.params ?? {}) as Record<string, unknown>;
  const path = endpoint.path.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) throw new Error(`${endpoint.path} needs the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}
