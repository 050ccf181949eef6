import { z } from 'zod/mini'
import { formatIssues } from '../../contract/api-error.ts'
import { Failure, ValidationError } from '../failures.ts'
import { rejectNulInJson } from './nul-characters.ts'

// The contract's schemas are zod/mini's (the dashboard shares them and loads no more of zod than
// they use), which loads no locale: the API's messages for the checks without a message of their
// own ("Invalid input: expected string, received number") are zod's English ones.
z.config(z.locales.en())

/** Parses input with a contract schema (or a server one), or throws a 400 that names each bad field. */
export function parseInput<S extends z.core.$ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = z.safeParse(schema, input)
  if (!result.success) throw new ValidationError(formatIssues(result.error.issues, prefix))
  return result.data
}

/**
 * Reads a JSON request body: 400 for a body that is not JSON or not an object (every API body
 * is one), 415 for a compressed body (only ingestion reads gzip and deflate, as notifiers send).
 */
export async function readJson(request: Request): Promise<unknown> {
  const encoding = request.headers.get('content-encoding')?.trim().toLowerCase()
  if (encoding && encoding !== 'identity') {
    throw new Failure('unsupported media type', [`Content-Encoding: ${encoding} is not supported by the API (send the JSON uncompressed)`])
  }
  const text = await request.text()
  if (text.trim() === '') return {}
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new ValidationError('request body is not valid JSON')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('request body: expected a JSON object')
  }
  rejectNulInJson(body)
  return body
}

/** Query parameters as a plain object (the last value wins for repeated keys). */
export function queryObject(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams)
}

/**
 * A list query parameter as one comma-separated value, however the client wrote it:
 * `?ids=a,b`, repeated (`?ids=a&ids=b`: Python requests, Go url.Values) or bracketed
 * (`?ids[]=a&ids[]=b`: Faraday, Rack). Undefined when absent.
 */
export function listParam(url: string, name: string): string | undefined {
  const params = new URL(url).searchParams
  const values = [...params.getAll(name), ...params.getAll(`${name}[]`)]
  return values.length > 0 ? values.join(',') : undefined
}
