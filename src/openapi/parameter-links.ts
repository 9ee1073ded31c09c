import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  OperationObject,
  ParameterObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** Carries a path parameter's source from ApiPathParameterFrom to addParameterLinks. */
export const PARAMETER_SOURCE_EXTENSION = 'x-linkpilot-from';

/** Where a path parameter's value comes from: a field of another operation's success answer. */
export interface ParameterSource {
  /** The operation that answers the value (Nest's `<Controller>_<method>` operationId). */
  operationId: string;
  /** Its success status. */
  status: number;
  /** A JSON pointer into its answer's body, e.g. `/data/link/linkId`. */
  pointer: string;
}

/** A parameter as the scanner writes it, vendor extensions included. */
type SourcedParameter = ParameterObject & { [PARAMETER_SOURCE_EXTENSION]?: ParameterSource };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Every operation of the document with its method and path, e.g. `GET /links/{id}`. */
function listOperations(document: OpenAPIObject): { name: string; operation: OperationObject }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation === undefined
        ? []
        : [{ name: `${method.toUpperCase()} ${path}`, operation }];
    }),
  );
}

/**
 * Turns each path parameter's declared source into a standard OpenAPI link on the source
 * operation's success answer (`links: {<operationId>: {operationId, parameters}}`): Swagger UI
 * shows it under that answer, and the example tests follow it to fill the parameter. A source
 * that names no operation of the document is a mistake in the code: it throws. Mutates and
 * returns the document.
 */
export function addParameterLinks(document: OpenAPIObject): OpenAPIObject {
  const operations = listOperations(document);
  const byId = new Map(operations.map(({ operation }) => [operation.operationId, operation]));
  for (const { name, operation } of operations) {
    for (const parameter of (operation.parameters ?? []) as SourcedParameter[]) {
      const source = parameter[PARAMETER_SOURCE_EXTENSION];
      if (source === undefined) continue;
      delete parameter[PARAMETER_SOURCE_EXTENSION];
      const answer = byId.get(source.operationId)?.responses[String(source.status)];
      if (answer === undefined || '$ref' in answer) {
        throw new Error(
          `${name}: parameter ${parameter.name} names ${source.operationId} ` +
            `${source.status}, which the document does not have.`,
        );
      }
      const operationId = operation.operationId as string;
      answer.links = {
        ...answer.links,
        [operationId]: {
          operationId,
          parameters: { [parameter.name]: `$response.body#${source.pointer}` },
          description: `The {${parameter.name}} of ${name}`,
        },
      };
    }
  }
  return document;
}
