import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type {
  GraphQLError} from 'graphql';
import {
  buildClientSchema,
  coerceInputValue,
  execute,
  getNamedType,
  getOperationAST,
  GraphQLEnumType,
  isNonNullType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  typeFromAST,
  parse,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { installedVersion, schemasFromTypes, validatorsFor, type Checked } from './type-schemas.ts';

/**
 * Shopify's definitions:
 * - The Admin GraphQL schema of the version Flowsmith pins, as Shopify publishes it in
 *   its own `@shopify/dev-mcp` package (ISC licence; `dist/data/admin_<version>.json.gz`,
 *   an introspection result). That package drags in Shopify's whole CLI, so it is not a
 *   dependency: its tarball is fetched once from the npm registry by name and version,
 *   checked against the integrity pinned here, and only the schema is kept, under
 *   node_modules/.cache.
 * - The Web Pixels API types of `@shopify/web-pixels-extension` (a dev dependency).
 */
export const adminSchemaPackage = { name: '@shopify/dev-mcp', version: '1.16.0', integrity: 'sha512-tqgRnK7sQhjew+htxtleTH23nXB5fZcsrhWgEkomsorGXvLOB2mh2upwZm8uzuTDNTZnqtLMe64yIwh6s2awtw==' };

const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/vendor-definitions/', import.meta.url));

function adminSchemaFile(version: string): string {
  return path.join(cacheDir, `shopify-admin-${version}-from-dev-mcp-${adminSchemaPackage.version}.json`);
}

/** Fetches (once) and unpacks Shopify's published Admin schema for `version`. */
export function ensureAdminSchema(version: string): string {
  const target = adminSchemaFile(version);
  if (existsSync(target)) return target;
  mkdirSync(cacheDir, { recursive: true });
  const work = path.join(cacheDir, `dev-mcp-${process.pid}-${Date.now()}`);
  mkdirSync(work, { recursive: true });
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', `${adminSchemaPackage.name}@${adminSchemaPackage.version}`, '--json', '--pack-destination', work], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    ) as Array<{ filename: string; integrity: string }>;
    const tarball = path.join(work, packed[0]!.filename.replace(/^@/, '').replace('/', '-'));
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== adminSchemaPackage.integrity) throw new Error(`${adminSchemaPackage.name}@${adminSchemaPackage.version} does not have the pinned integrity (${integrity})`);
    const member = `package/dist/data/admin_${version}.json.gz`;
    execFileSync('tar', ['-xzf', tarball, '-C', work, member]);
    const introspection = gunzipSync(readFileSync(path.join(work, member))).toString('utf8');
    const partial = `${target}.${process.pid}.tmp`;
    writeFileSync(partial, introspection);
    renameSync(partial, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const schemas = new Map<string, GraphQLSchema>();

export function adminSchema(version: string): GraphQLSchema {
  let schema = schemas.get(version);
  if (!schema) {
    const introspection = JSON.parse(readFileSync(ensureAdminSchema(version), 'utf8')) as { data: IntrospectionQuery };
    schema = buildClientSchema(introspection.data, { assumeValid: true });
    schemas.set(version, schema);
  }
  return schema;
}

const parsed = new Map<string, DocumentNode | readonly GraphQLError[]>();

/**
 * What Shopify would refuse in a GraphQL request: a query that does not parse or
 * validate against the schema (an unknown field, a wrong argument), or variables that
 * do not fit their declared types (an unknown enum value, a missing required input field).
 */
export function checkAdminRequest(version: string, body: unknown): Checked & { document?: DocumentNode } {
  const schema = adminSchema(version);
  const request = body as { query?: unknown; variables?: unknown } | undefined;
  if (typeof request?.query !== 'string') return { ok: false, problems: ['the body has no query string'] };
  let document = parsed.get(request.query);
  if (!document) {
    try {
      const candidate = parse(request.query);
      const errors = validate(schema, candidate);
      document = errors.length > 0 ? errors : candidate;
    } catch (error) {
      document = [error as GraphQLError];
    }
    parsed.set(request.query, document);
  }
  if (Array.isArray(document)) return { ok: false, problems: (document as readonly GraphQLError[]).map((error) => error.message) };
  const operation = getOperationAST(document as DocumentNode);
  if (!operation) return { ok: false, problems: ['the document has no single operation'] };
  const variables = (request.variables ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) continue;
    if (variables[name] === undefined) {
      if (isNonNullType(type) && !definition.defaultValue) problems.push(`Variable "$${name}" of required type "${String(type)}" was not provided.`);
      continue;
    }
    coerceInputValue(variables[name], type, (path, _value, error) => problems.push(`Variable "$${name}"${path.length > 0 ? ` at ${path.join('.')}` : ''}: ${error.message}`));
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, problems: [], document: document as DocumentNode };
}

/**
 * Whether an answer's `data` fits the query's selection in the schema: run as an
 * execution whose root value is the stand-in's data, so a missing non-null field, a
 * wrong scalar or an enum value the schema lacks shows up as an error.
 */
export function checkAdminAnswer(version: string, document: DocumentNode, variables: unknown, data: unknown): Checked {
  const result = execute({
    schema: adminSchema(version),
    document,
    rootValue: data,
    variableValues: (variables ?? {}) as Record<string, unknown>,
    // Objects are returned as the stand-in wrote them; interfaces and unions need their __typename.
    typeResolver: (value) => (value as { __typename?: string }).__typename,
  }) as { errors?: readonly GraphQLError[] };
  const errors = result.errors ?? [];
  return { ok: errors.length === 0, problems: errors.map((error) => `${error.path?.join('.') ?? ''}: ${error.message}`) };
}

/**
 * The scopes a description says are required, in the phrasings the schema uses: "Requires
 * the `read_orders` scope.", "Requires at least one of the following scopes: read_orders,
 * read_marketplace_orders.", "The app must have the `read_assigned_fulfillment_orders`
 * access scope". Any one of them is enough. A scope named for another reason ("For
 * example, `read_orders`") is not a requirement.
 */
function requiredScopesIn(description: string | null | undefined): string[] {
  const text = (description ?? '').replace(/\s+/g, ' ');
  const anyOf = /Requires at least one of the following scopes: ([^.]*)\./.exec(text);
  if (anyOf) return anyOf[1]!.split(/[\s,`]+/).filter((scope) => /^(?:read|write)_\w+$/.test(scope));
  return [...text.matchAll(/(?:Requires (?:the )?|must have the )`((?:read|write)_\w+)`(?: access)? scope/g)].map((match) => match[1]!);
}

/**
 * Scopes Shopify's reference states for a field but the published introspection leaves
 * out of its descriptions (https://shopify.dev/docs/api/admin-graphql/2026-10/queries/product
 * and …/queries/products: "Requires `read_products` access scope."). Keyed "Type.field";
 * any one scope is enough.
 */
export const scopesStatedOutsideDescriptions: Record<string, string[]> = {
  'QueryRoot.product': ['read_products'],
  'QueryRoot.products': ['read_products'],
};

/**
 * The access scopes the schema's documentation says a field or an enum value needs
 * (`documentedScopes(v, 'WebhookSubscriptionTopic', 'CHECKOUTS_CREATE')` → ['read_orders']);
 * any one of them is enough. Empty when nothing is required.
 */
export function documentedScopes(version: string, typeName: string, fieldName: string): string[] {
  const type = adminSchema(version).getType(typeName);
  if (type instanceof GraphQLEnumType) return requiredScopesIn(type.getValue(fieldName)?.description);
  const field = (type as { getFields?: () => Record<string, { description?: string | null }> } | undefined)?.getFields?.()[fieldName];
  return [...new Set([...requiredScopesIn(field?.description), ...(scopesStatedOutsideDescriptions[`${typeName}.${fieldName}`] ?? [])])];
}

export interface ScopeRequirement {
  /** The field or enum value that needs it, as Shopify's ACCESS_DENIED names it ("product", "CHECKOUTS_CREATE"). */
  what: string;
  /** The response path of the field it sits on. */
  path: string[];
  /** Any one of these is enough. */
  anyOf: string[];
}

/**
 * Every scope a request needs: each selected field's (documentedScopes), and each enum
 * value it passes in an argument, inline or as a variable (a webhook topic's scope).
 */
export function requiredScopes(version: string, document: DocumentNode, variables: Record<string, unknown> = {}): ScopeRequirement[] {
  const schema = adminSchema(version);
  const typeInfo = new TypeInfo(schema);
  const requirements: ScopeRequirement[] = [];
  const path: string[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node) {
          path.push(node.alias?.value ?? node.name.value);
          const parent = typeInfo.getParentType();
          const anyOf = parent ? documentedScopes(version, parent.name, node.name.value) : [];
          if (anyOf.length > 0) requirements.push({ what: node.name.value, path: [...path], anyOf });
        },
        leave() {
          path.pop();
        },
      },
      Argument(node) {
        const argument = typeInfo.getArgument();
        const type = argument ? getNamedType(argument.type) : undefined;
        if (!(type instanceof GraphQLEnumType)) return;
        const value = node.value.kind === 'EnumValue' ? node.value.value : node.value.kind === 'Variable' ? variables[node.value.name.value] : undefined;
        if (typeof value !== 'string') return;
        const anyOf = documentedScopes(version, type.name, value);
        if (anyOf.length > 0) requirements.push({ what: value, path: [...path], anyOf });
      },
    }),
  );
  return requirements;
}

export const webPixelsVersion = installedVersion('@shopify/web-pixels-extension');

let pixelValidators: ReturnType<typeof validatorsFor> | undefined;

/** Checks a value against a type of the Web Pixels API (e.g. 'PixelEventsProductViewed', 'RegisterInit'). */
export function checkPixelType(type: string, value: unknown): Checked {
  pixelValidators ??= validatorsFor(
    // The package's type index, which exports the pixel events and `RegisterInit` (the sandbox's `init`).
    schemasFromTypes('@shopify/web-pixels-extension', 'build/ts/types/index.d.ts', ['PixelEventsProductViewed', 'PixelEventsProductAddedToCart', 'PixelEventsCheckoutStarted', 'RegisterInit']),
  );
  return pixelValidators.check(type, value);
}
