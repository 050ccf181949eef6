import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { Failure } from '../../failures.ts'
import { readNodeBody } from './read-body.ts'

describe('readNodeBody', () => {
  it('answers 400 "client closed" when the client goes away mid-body, not a database 503', async () => {
    // What Node emits on the request when the socket closes before the declared body arrived.
    const incoming = new Readable({ read() {} })
    incoming.push(Buffer.from('{"events":['))
    setTimeout(() => incoming.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })), 5)
    const failure = await readNodeBody(Object.assign(incoming, { headers: {} }) as unknown as IncomingMessage, 1024).catch((err: unknown) => err)
    expect(failure).toBeInstanceOf(Failure)
    expect(failure).toMatchObject({ kind: 'invalid' })
    expect((failure as Failure).message).toContain('the client closed the connection before the body was complete')
  })

  it('passes other stream errors on unchanged', async () => {
    const incoming = new Readable({ read() {} })
    setTimeout(() => incoming.destroy(Object.assign(new Error('disk on fire'), { code: 'EIO' })), 5)
    await expect(readNodeBody(Object.assign(incoming, { headers: {} }) as unknown as IncomingMessage, 1024)).rejects.toThrow('disk on fire')
  })
})
