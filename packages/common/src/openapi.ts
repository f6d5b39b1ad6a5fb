import { z } from 'zod';

type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  example?: unknown;
  /** `required: false` for a header only some of these answers carry. */
  headers?: Record<string, { description: string; schema: z.ZodType; required?: boolean }>;
}

/** One operation, described with the same zod schemas that validate it. */
export interface OperationDoc {
  method: Method;
  /** Express-style path: `/api/merchant/approve/:id`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** Security requirements by scheme name, as OpenAPI writes them; `{}` first when optional. */
  security?: Record<string, string[]>[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: z.ZodType;
  bodyExample?: unknown;
  responses: Record<number, ResponseDoc>;
}

interface ApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** What a document is built from. */
interface ApiDescription {
  info: ApiInfo;
  operations: OperationDoc[];
  /** The schemes operations name in `security`, as OpenAPI writes them. */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /** The answer for every path or method not listed: `components.responses.NotFound`. */
  notFound?: ResponseDoc;
}

/** Every request may bring an id, and every answer carries the one it was logged under. */
const requestIdParameter = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description:
    'Your id for this request: kept when it is 1 to 128 of A-Z a-z 0-9 . _ -, otherwise replaced.',
  schema: { type: 'string' },
};

const requestIdHeader = {
  'X-Request-Id': {
    description: 'The id under which the service logged this request: as sent, or generated.',
    schema: { type: 'string' },
  },
};

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
  components?: { securitySchemes?: Record<string, unknown>; responses?: Record<string, unknown> };
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

/** `/api/merchant/approve/:id` → `/api/merchant/approve/{id}` */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(operation: OperationDoc) {
  return [...declaredParameters(operation), requestIdParameter];
}

function declaredParameters(operation: OperationDoc) {
  const groups = [
    ['path', operation.params],
    ['query', operation.query],
    ['header', operation.headers],
  ] as const;
  return groups.flatMap(([location, schema]) => {
    if (!schema) return [];
    const object = jsonSchema(schema, 'input') as {
      properties?: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    return Object.entries(object.properties ?? {}).map(([name, property]) => {
      const { description, ...propertySchema } = property;
      return {
        name,
        in: location,
        required: location === 'path' || (object.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: propertySchema,
      };
    });
  });
}

function responseObject(response: ResponseDoc) {
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, header]) => [
      name,
      {
        description: header.description,
        ...(header.required === false ? { required: false } : {}),
        schema: jsonSchema(header.schema, 'output'),
      },
    ]),
  );
  return {
    description: response.description,
    headers: { ...requestIdHeader, ...headers },
    ...(response.schema
      ? {
          content: {
            'application/json': {
              schema: jsonSchema(response.schema, 'output'),
              ...(response.example === undefined ? {} : { example: response.example }),
            },
          },
        }
      : {}),
  };
}

function operationObject(operation: OperationDoc) {
  const responses = Object.entries(operation.responses).map(([status, response]) => [
    status,
    responseObject(response),
  ]);
  return {
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.tags ? { tags: operation.tags } : {}),
    parameters: parameters(operation),
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: jsonSchema(operation.body, 'input'),
                ...(operation.bodyExample === undefined ? {} : { example: operation.bodyExample }),
              },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(responses),
    ...(operation.security ? { security: operation.security } : {}),
  };
}

/**
 * An OpenAPI 3.1 document generated from the operations' zod schemas; every
 * operation takes an optional X-Request-Id and every answer carries one.
 */
export function buildOpenApi(api: ApiDescription): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of api.operations) {
    const path = openApiPath(operation.path);
    paths[path] ??= {};
    paths[path][operation.method] = operationObject(operation);
  }
  const components = {
    ...(api.securitySchemes ? { securitySchemes: api.securitySchemes } : {}),
    ...(api.notFound ? { responses: { NotFound: responseObject(api.notFound) } } : {}),
  };
  return {
    openapi: '3.1.0',
    info: api.info,
    paths,
    ...(Object.keys(components).length > 0 ? { components } : {}),
  };
}
