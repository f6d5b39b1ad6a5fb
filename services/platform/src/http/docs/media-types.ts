import {
  type OpenApiDocument,
  type OperationDoc,
  openApiPath,
  type ResponseDoc,
} from '@svc/common';

/** An answer whose body is not JSON (a stream of Server-Sent Events): its media type. */
export type MediaTypedResponse = ResponseDoc & { mediaType?: string };

type BuiltResponses = Record<string, { content?: Record<string, unknown> }>;

/**
 * Puts each answer that names a `mediaType` under that type in the built
 * document, where common's builder, which knows only JSON bodies, wrote it
 * as application/json.
 */
export function withMediaTypes(
  document: OpenApiDocument,
  operations: OperationDoc[],
): OpenApiDocument {
  for (const { path, method, responses } of operations) {
    for (const [status, response] of Object.entries(responses) as [string, MediaTypedResponse][]) {
      if (!response.mediaType) continue;
      const built = document.paths[openApiPath(path)]?.[method] as { responses: BuiltResponses };
      const answer = built.responses[status];
      if (!answer?.content)
        throw new Error(`${method} ${path} ${status}: a mediaType needs a schema`);
      answer.content = { [response.mediaType]: answer.content['application/json'] };
    }
  }
  return document;
}
