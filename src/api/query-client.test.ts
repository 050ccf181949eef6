// The MutationCache applies each mutation's cache rule (meta.cache) at its moment: after a success
// before the caller's onSuccess, after the caller's onSuccess, and after a failure.
import { MutationObserver } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { mutationWithCacheRule } from './cache-rules.ts'
import { createQueryClient } from './query-client.ts'

describe('the MutationCache applies the rule each mutation carries', () => {
  it('writes and drops before the caller’s onSuccess, and drops what the caller leaves after it', async () => {
    const client = createQueryClient()
    client.setQueryData(['list'], ['a', 'b'])
    client.setQueryData(['detail', 'b'], 'b')
    const seen: unknown[] = []
    const options = mutationWithCacheRule({
      mutationKey: ['things', 'delete'],
      mutationFn: (id: string) => Promise.resolve(id),
      cache: {
        afterSuccess: (id) => ({ remove: [['list']], write: [[['deleted'], id]] }),
        afterCallerSuccess: (id) => ({ remove: [['detail', id]] }),
      },
    })
    const observer = new MutationObserver(client, {
      ...options,
      onSuccess: () => {
        // The caller (navigating away) sees the list gone and the page it leaves still cached.
        seen.push(client.getQueryData(['list']), client.getQueryData(['deleted']), client.getQueryData(['detail', 'b']))
      },
    })
    await observer.mutate('b')
    expect(seen).toEqual([undefined, 'b', 'b'])
    expect(client.getQueryData(['detail', 'b'])).toBeUndefined()
  })

  it('after a failure applies only afterFailure, once the mutation’s own onError has run', async () => {
    const client = createQueryClient()
    client.setQueryData(['list'], 'before')
    const order: string[] = []
    const options = mutationWithCacheRule({
      mutationKey: ['things', 'update'],
      mutationFn: (_value: string): Promise<string> => Promise.reject(new Error('refused')),
      meta: { inlineErrors: true },
      onError: () => void order.push('rolled back'),
      cache: {
        afterSuccess: () => ({ remove: [['list']] }),
        afterFailure: (value) => {
          order.push(`after failure of ${value}`)
          return { write: [[['list'], 'read again']] }
        },
      },
    })
    await expect(new MutationObserver(client, options).mutate('x')).rejects.toThrow('refused')
    expect(order).toEqual(['rolled back', 'after failure of x'])
    expect(client.getQueryData(['list'])).toBe('read again')
  })

  it('starts a clean cache when the rule says so (someone else signed in)', async () => {
    const client = createQueryClient()
    client.setQueryData(['user', 'current'], 'previous user')
    client.setQueryData(['projects', 'list', 'o1'], ['theirs'])
    const options = mutationWithCacheRule({
      mutationKey: ['invitations', 'accept-link'],
      mutationFn: () => Promise.resolve('new user'),
      cache: { afterSuccess: (user) => ({ clear: true, write: [[['user', 'current'], user]] }) },
    })
    await new MutationObserver(client, options).mutate()
    expect(client.getQueryData(['user', 'current'])).toBe('new user')
    expect(client.getQueryData(['projects', 'list', 'o1'])).toBeUndefined()
  })
})
