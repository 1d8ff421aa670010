/**
 * The service's own schema as the judge of the wire. Every exchange the fake recorded (the
 * request the client sent and the answer the fake gave) is checked against
 * service-openapi.facts.json by openapi-backend, which routes a request to its operation and
 * validates path, query, headers and body with Ajv; nothing here checks a shape by hand.
 */
import { readFileSync } from 'node:fs'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsPlugin from 'ajv-formats'
import { OpenAPIBackend, type Operation } from 'openapi-backend'
import type { OpenAPIV3 } from 'openapi-types'
import type { RecordedRequest, RecordedResponse } from '../fake-api/server.ts'

const FACTS_URL = new URL('./service-openapi.facts.json', import.meta.url)

type Exchange = RecordedRequest & { response: RecordedResponse }

// ajv-formats is CommonJS; its default export arrives wrapped under Node's ESM loader.
const addFormats = ((addFormatsPlugin as { default?: unknown }).default ?? addFormatsPlugin) as (
  ajv: Ajv,
) => Ajv

export interface WireContract {
  /** What is wrong with each exchange, one line each; empty when all of them conform. */
  violations(exchanges: readonly Exchange[]): string[]
  /** The operation an exchange was routed to, e.g. `cancelRun`. */
  operationOf(exchange: RecordedRequest): string | undefined
}

export async function loadContract(): Promise<WireContract> {
  const definition = JSON.parse(readFileSync(FACTS_URL, 'utf8')) as OpenAPIV3.Document
  // `quick` skips the check of the document itself: the facts dropped the prose (descriptions)
  // that a complete OpenAPI document requires. Requests and answers are still fully validated.
  const api = new OpenAPIBackend<OpenAPIV3.Document>({
    definition,
    quick: true,
    strict: true,
    validate: true,
    customizeAjv: (ajv) => addFormats(ajv as unknown as Ajv) as unknown as typeof ajv,
  })
  await api.init()

  // An answer whose status the operation does not list (a 429, a 410, a gateway's 5xx) is
  // still the service's problem document, and its code one of the schema's error codes.
  const schemas = definition.components?.schemas ?? {}
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }))
  const problem: ValidateFunction = ajv.compile(schemas['Error'] ?? {})
  const errorCode: ValidateFunction = ajv.compile(schemas['PlatformErrorCode'] ?? {})

  const route = (request: RecordedRequest): Operation<OpenAPIV3.Document> | undefined =>
    api.matchOperation({
      method: request.method.toLowerCase(),
      path: request.path,
      query: request.query.toString(),
      headers: flatHeaders(request.headers),
    })

  return {
    operationOf: (request) => route(request)?.operationId,
    violations(exchanges) {
      const found: string[] = []
      for (const exchange of exchanges) {
        const where = `${exchange.method} ${exchange.path}?${exchange.query.toString()} → ${exchange.response.status}`
        const operation = route(exchange)
        if (!operation) {
          found.push(`${where}: no operation in the schema`)
          continue
        }
        const request = api.validateRequest(
          {
            method: exchange.method.toLowerCase(),
            path: exchange.path,
            query: exchange.query.toString(),
            headers: flatHeaders(exchange.headers),
            body: exchange.json,
          },
          operation,
        )
        for (const error of request.errors ?? []) found.push(`${where}: request ${format(error)}`)

        const { status, body, headers } = exchange.response
        const declared = operation.responses[String(status)]
        const parsed = parseBody(body)
        if (declared) {
          const answer =
            'content' in declared
              ? api.validateResponse(parsed, operation, status)
              : api.validateResponseHeaders(flatHeaders(headers), operation, {
                  statusCode: status,
                })
          for (const error of answer.errors ?? []) found.push(`${where}: answer ${format(error)}`)
        } else if (status < 400) {
          found.push(`${where}: status ${status} is not one the schema lists`)
        } else if (!problem(parsed)) {
          for (const error of problem.errors ?? []) found.push(`${where}: problem ${format(error)}`)
        }
        if (status >= 400 && isObject(parsed) && typeof parsed['type'] === 'string') {
          const code = parsed['type'].split('/').pop()
          if (!errorCode(code)) found.push(`${where}: error code ${code} is not in the schema`)
        }
      }
      return found
    },
  }
}

function parseBody(body: string): unknown {
  if (body === '') return undefined
  try {
    return JSON.parse(body)
  } catch {
    return body
  }
}

function flatHeaders(headers: Record<string, unknown>): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return flat
}

function format(error: { instancePath?: string; message?: string; params?: unknown }): string {
  return `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params ?? {})}`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
