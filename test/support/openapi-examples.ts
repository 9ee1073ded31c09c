/**
 * Reads the documented request of every operation of the OpenAPI document (/docs-json) and
 * sends it, the way Swagger UI's "Try it out" fills it: the first of a parameter's examples,
 * else its `example`, its schema's `example` or `default`; each named request body example.
 * A path parameter without an example is filled by following the OpenAPI link that points
 * at it from another operation's success answer (e.g. `{id}` from POST /links's
 * `data.link.linkId`): that operation's own documented request is sent first.
 */

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
  schema?: { example?: unknown; default?: unknown };
}

interface Operation {
  operationId: string;
  /** An operation served outside the document's server (the postbacks: at the site root). */
  servers?: { url: string }[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<
    string,
    {
      links?: Record<string, { operationId: string; parameters: Record<string, string> }>;
      content?: Record<
        string,
        { examples?: Record<string, { value: { error: { code: string } } }> }
      >;
    }
  >;
  security?: unknown[];
}

export interface OpenApiDocument {
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown> & { servers?: { url: string }[] }>;
}

export interface DocumentedOperation {
  /** `POST /links`. */
  name: string;
  method: string;
  path: string;
  /** The server the path is relative to: the path item's, else the document's. */
  serverUrl: string;
  operation: Operation;
}

/** One request as sent: method, URL (from the site root), JSON body. */
export interface ExampleRequest {
  method: string;
  url: string;
  body?: unknown;
  /** The operation has a security requirement: send the caller's key (Swagger UI does). */
  isAuthenticated: boolean;
}

export interface ExampleAnswer {
  status: number;
  body: unknown;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function listOperations(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => ({
      name: `${method.toUpperCase()} ${path}`,
      method,
      path,
      serverUrl: ((item[method] as Operation).servers ?? item.servers ?? document.servers)[0].url,
      operation: item[method] as Operation,
    })),
  );
}

/** The success status the operation documents: its one 2XX answer, else its one 3XX. */
export function successStatusOf({ name, operation }: DocumentedOperation): number {
  const statuses = Object.keys(operation.responses).map(Number);
  const successes = statuses.filter((status) => status >= 200 && status < 300);
  const candidates =
    successes.length > 0 ? successes : statuses.filter((status) => status >= 300 && status < 400);
  if (candidates.length !== 1) {
    throw new Error(`${name} documents ${candidates.length} success answers, not one`);
  }
  return candidates[0];
}

/**
 * The named request body examples, in the order Swagger UI offers them (it pre-fills the
 * first); `[{name: '(no body)'}]` for an operation without a body. A body without an example
 * is an error: Swagger UI would pre-fill a sample built from the schema instead.
 */
export function bodyExamplesOf({
  name,
  operation,
}: DocumentedOperation): { exampleName: string; body?: unknown }[] {
  if (operation.requestBody === undefined) return [{ exampleName: '(no body)' }];
  const media = operation.requestBody.content['application/json'];
  const examples = Object.entries(media?.examples ?? {}).map(([exampleName, { value }]) => ({
    exampleName,
    body: value,
  }));
  if (media?.example !== undefined) examples.push({ exampleName: 'example', body: media.example });
  if (examples.length === 0) throw new Error(`${name} has a request body but no example`);
  return examples;
}

/** Whether the operation answers 403 TEST_KEY_REQUIRED: it needs a test key (lp_test_sk_). */
export function needsTestKey({ operation }: DocumentedOperation): boolean {
  const examples = operation.responses['403']?.content?.['application/json']?.examples ?? {};
  return Object.values(examples).some(
    (example) => example.value.error.code === 'TEST_KEY_REQUIRED',
  );
}

/** Whether the operation carries a security requirement (an API key). */
function isAuthenticated({ operation }: DocumentedOperation): boolean {
  return (operation.security ?? []).length > 0;
}

/** The value Swagger UI pre-fills for a parameter (its ParameterRow's order), as text. */
function prefilledValue(parameter: Parameter): string | undefined {
  const value =
    Object.values(parameter.examples ?? {})[0]?.value ??
    parameter.example ??
    parameter.schema?.example ??
    parameter.schema?.default;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The value at a JSON pointer (`/data/link/linkId`), or undefined. */
export function readPointer(body: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, token) =>
        node !== null && typeof node === 'object' ? (node as Json)[token] : undefined,
      body,
    );
}

/** Sends one request with the caller's key and answers its status and JSON body. */
export type SendRequest = (request: ExampleRequest) => Promise<ExampleAnswer>;

/**
 * Path parameter values an operation's documented links cannot give in one request (the API
 * makes them in the background), by operationId.
 */
export type ParameterFixtures = Record<
  string,
  (runner: ExampleRunner) => Promise<Record<string, string>>
>;

export class ExampleRunner {
  private readonly operations: DocumentedOperation[];

  constructor(
    document: OpenApiDocument,
    private readonly send: SendRequest,
    private readonly fixtures: ParameterFixtures = {},
  ) {
    this.operations = listOperations(document);
  }

  operationById(operationId: string): DocumentedOperation {
    const found = this.operations.find((entry) => entry.operation.operationId === operationId);
    if (found === undefined) throw new Error(`No operation ${operationId} in the document`);
    return found;
  }

  /**
   * The path parameters of an operation: each one's example, else the value its OpenAPI link
   * reads from the answer of the linked operation's documented request (sent now, checked
   * for its success status), else a fixture.
   */
  async resolvePathParameters(entry: DocumentedOperation): Promise<Record<string, string>> {
    const fixture = this.fixtures[entry.operation.operationId];
    if (fixture !== undefined) return fixture(this);
    const values: Record<string, string> = {};
    for (const parameter of entry.operation.parameters ?? []) {
      if (parameter.in !== 'path') continue;
      values[parameter.name] =
        prefilledValue(parameter) ?? (await this.valueFromLink(entry, parameter.name));
    }
    return values;
  }

  /** The URL Swagger UI calls: the server, the path filled in, the pre-filled query. */
  buildUrl(entry: DocumentedOperation, pathValues: Record<string, string>): string {
    const path = entry.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const value = pathValues[name];
      if (value === undefined) throw new Error(`${entry.name}: no value for {${name}}`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const parameter of entry.operation.parameters ?? []) {
      const value = prefilledValue(parameter);
      if (parameter.in === 'query' && value !== undefined) query.append(parameter.name, value);
      if (parameter.in === 'query' && value === undefined && parameter.required === true) {
        throw new Error(`${entry.name}: required query parameter ${parameter.name} has no example`);
      }
    }
    const search = query.size > 0 ? `?${query.toString()}` : '';
    return `${entry.serverUrl.replace(/\/$/, '')}${path}${search}`;
  }

  /**
   * Sends the operation's documented request with one of its body examples; its path
   * parameters resolved as above unless given.
   */
  async run(
    entry: DocumentedOperation,
    body?: unknown,
    pathValues?: Record<string, string>,
  ): Promise<ExampleRequest & ExampleAnswer> {
    const request = {
      method: entry.method.toUpperCase(),
      url: this.buildUrl(entry, pathValues ?? (await this.resolvePathParameters(entry))),
      body,
      isAuthenticated: isAuthenticated(entry),
    };
    return { ...request, ...(await this.send(request)) };
  }

  /** Sends an operation's first documented request and checks it succeeded. */
  async runFirstExample(operationId: string): Promise<unknown> {
    const entry = this.operationById(operationId);
    const answer = await this.run(entry, bodyExamplesOf(entry)[0].body);
    if (answer.status !== successStatusOf(entry)) {
      throw new Error(
        `${entry.name} ${answer.url} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      );
    }
    return answer.body;
  }

  private async valueFromLink(entry: DocumentedOperation, name: string): Promise<string> {
    const { operationId } = entry.operation;
    for (const source of this.operations) {
      for (const answer of Object.values(source.operation.responses)) {
        const link = Object.values(answer.links ?? {}).find(
          (candidate) => candidate.operationId === operationId,
        );
        const expression = link?.parameters[name];
        if (expression === undefined) continue;
        const body = await this.runFirstExample(source.operation.operationId);
        const value = readPointer(body, expression.replace(/^\$response\.body#/, ''));
        if (typeof value !== 'string' && typeof value !== 'number') {
          throw new Error(`${entry.name}: ${expression} of ${source.name} is ${String(value)}`);
        }
        return String(value);
      }
    }
    throw new Error(`${entry.name}: {${name}} has no example and no OpenAPI link fills it`);
  }
}
